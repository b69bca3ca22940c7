import { afterEach, describe, expect, it } from 'vitest';
import { chooseReplacement } from '../../../scripts/lib/takeover/choose-replacement.ts';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';

const kube = {} as Kube;
const saved = process.env['PHAROS_TELEPRESENCE'];
afterEach(() => {
  if (saved === undefined) delete process.env['PHAROS_TELEPRESENCE'];
  else process.env['PHAROS_TELEPRESENCE'] = saved;
});

describe('chooseReplacement()', () => {
  it('auto without a Telepresence CLI falls back to scale-to-zero and says why', async () => {
    process.env['PHAROS_TELEPRESENCE'] = '/nonexistent/telepresence';
    const lines: string[] = [];
    expect((await chooseReplacement('auto', kube, (l) => lines.push(l))).name).toBe('scale-to-zero');
    expect(lines).toEqual([
      'telepresence not found ("/nonexistent/telepresence version" failed): workloads are scaled to zero instead',
    ]);
  });
  it('telepresence asked for and missing is an error naming the binary and the way out', async () => {
    process.env['PHAROS_TELEPRESENCE'] = '/nonexistent/telepresence';
    await expect(chooseReplacement('telepresence', kube, () => {})).rejects.toThrow(
      'Cannot replace workloads through Telepresence: "/nonexistent/telepresence version" does not answer (install it, set PHAROS_TELEPRESENCE, or use --replacement scale-to-zero)',
    );
  });
  it('scale-to-zero never asks for Telepresence', async () => {
    process.env['PHAROS_TELEPRESENCE'] = '/nonexistent/telepresence';
    expect((await chooseReplacement('scale-to-zero', kube, () => {})).name).toBe('scale-to-zero');
  });
});
