import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseReplacement } from '../../../../scripts/lib/takeover/replacement/choose-replacement.ts';
import type { Kube } from '../../../../scripts/lib/ports/kube.ts';

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
  it.each([
    ['2.29.3 (no detach yet)', 'OSS Client : v2.29.3', 'Telepresence v2.29.3'],
    ['an unreadable version line', 'telepresence, some build', 'Telepresence (its version line is unreadable)'],
  ])('refuses a client older than 2.30: %s, whatever --replacement asks for', async (_what, line, says) => {
    const dir = await mkdtemp(join(tmpdir(), 'old-telepresence-'));
    const cli = join(dir, 'telepresence');
    await writeFile(cli, `#!/bin/sh\necho '${line}'\n`);
    await chmod(cli, 0o755);
    process.env['PHAROS_TELEPRESENCE'] = cli;
    try {
      for (const kind of ['auto', 'telepresence'])
        await expect(chooseReplacement(kind, kube, () => {})).rejects.toThrow(
          `Cannot replace workloads through ${says}: takeover speaks Telepresence 2.30 or later (docs/takeover.md "Telepresence"); upgrade it, or use --replacement scale-to-zero`,
        );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
