import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubeFromFile } from '../../../scripts/lib/ports/kube.ts';
import { KubeError } from '../../../scripts/lib/ports/kube-error.ts';
import { thrown } from '../../support/thrown.ts';

describe('kubeFromFile(): a kubeconfig the command cannot use is a configuration error (exit 2)', () => {
  it('a missing file names the path and how to point at another, with code config and exit status 2', () => {
    const error = thrown(KubeError, () => kubeFromFile('/nonexistent/kubeconfig'));
    expect(error.code).toBe('config');
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(
      'Cannot load kubeconfig "/nonexistent/kubeconfig": ENOENT: no such file or directory, open \'/nonexistent/kubeconfig\' (set KUBECONFIG, or kube.kubeconfig and kube.context in the target profile; without a dev box, make demo-devbox shows the loop on simulators)',
    );
  });

  it('a context the file does not have exits 2 too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeconfig-'));
    try {
      const path = join(dir, 'config');
      await writeFile(path, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
      const error = thrown(KubeError, () => kubeFromFile(path, 'dev'));
      expect(error.exitCode).toBe(2);
      expect(error.message).toContain(`"${path}"`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an API failure stays exit status 1: it may pass on retry', () => {
    expect(new KubeError('unavailable', 'down').exitCode).toBe(1);
  });
});
