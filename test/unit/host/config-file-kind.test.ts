import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HostError } from '../../../scripts/lib/host/host-error.ts';
import { loadHostConfig } from '../../../scripts/lib/host/load-host-config.ts';

let dir = '';
afterEach(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe('loadHostConfig(): a reconcile.env that is not a file', () => {
  it('a directory in its place is a configuration error (exit 2) saying so, not an internal error', async () => {
    dir = await mkdtemp(join(tmpdir(), 'host-etc-'));
    await mkdir(join(dir, 'reconcile.env'));
    await chmod(join(dir, 'reconcile.env'), 0o700);
    const error = await loadHostConfig({ HEPHAESTUS_ETC: dir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HostError);
    expect((error as HostError).exitCode).toBe(2);
    expect((error as HostError).message).toBe(
      `Cannot use "${join(dir, 'reconcile.env')}": it is a directory; it must be a file of KEY=value lines (or absent)`,
    );
  });
});
