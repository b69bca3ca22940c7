import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kubeForJob } from '../../../scripts/lib/pharos/kube-client.ts';
import { startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';

let server: KubeApiServer;
let dir: string;
const saved = process.env['KUBECONFIG'];

beforeAll(async () => {
  server = await startKubeApiServer();
  dir = await mkdtemp(join(tmpdir(), 'kube-for-job-'));
});
afterEach(() => {
  if (saved === undefined) delete process.env['KUBECONFIG'];
  else process.env['KUBECONFIG'] = saved;
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('kubeForJob(): the hook Job finds its credentials as kubectl does', () => {
  it('without --kubeconfig it reads $KUBECONFIG through client-node; a listed file that is missing exits 2', async () => {
    server.addUser('hook-token', 'system:serviceaccount:pharos:pharos-credentials');
    await server.writeKubeconfig(join(dir, 'hook'), 'pharos', 'hook-token');
    process.env['KUBECONFIG'] = `${join(dir, 'hook')}:${join(dir, 'missing-file')}`;
    const error = await kubeForJob(undefined).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'config',
      message: expect.stringContaining('missing-file'),
    });
    process.env['KUBECONFIG'] = join(dir, 'hook');
    expect((await (await kubeForJob(undefined)).whoAmI()).username).toBe(
      'system:serviceaccount:pharos:pharos-credentials',
    );
  });

  it('with --kubeconfig it reads that file only', async () => {
    await server.writeKubeconfig(join(dir, 'given'));
    process.env['KUBECONFIG'] = join(dir, 'nowhere');
    expect((await (await kubeForJob(join(dir, 'given'))).whoAmI()).username).toBe('system:admin');
  });
});
