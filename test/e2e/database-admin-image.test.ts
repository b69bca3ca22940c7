import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { parseCatalogue } from '../../scripts/lib/catalogue/parse-catalogue.ts';
import { ensureDatabaseAdminBase } from '../support/database-admin-base.ts';
import { startKubeApiServer } from '../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../support/kube-api-server/index.ts';
import { startPostgres } from '../support/postgres-server.ts';
import type { PostgresServer } from '../support/postgres-server.ts';
import { PROJECT_ROOT } from '../support/run-script.ts';

// docker/database-admin/Dockerfile built by the real Docker Engine from this checkout, as its catalogue entry says,
// then run as the hooks run it: UID 70, read-only root file system, against the API test server and PostgreSQL 15.
// The tag is kept so that a later run reuses the `npm ci` layer; the build has no network (the base carries npm's cache).
const TAG = 'pharos/database-admin:e2e';
let base: string;
let postgres: PostgresServer;
let server: KubeApiServer;
let dir: string;

async function docker(...args: string[]): Promise<{ code: number; out: string }> {
  const result = await exec('docker', args, { timeoutMs: 600_000 });
  return { code: result.code, out: `${result.stdout.toString()}${String(result.stderr)}`.trim() };
}

beforeAll(async () => {
  base = await ensureDatabaseAdminBase();
  const catalogue = parseCatalogue(
    await (await import('node:fs/promises')).readFile(join(PROJECT_ROOT, 'gitops/manifests/images.yaml'), 'utf8'),
    'gitops/manifests/images.yaml',
  );
  const entry = catalogue.images.find((i) => i.name === 'database-admin');
  if (entry === undefined) throw new Error('no database-admin in the catalogue');
  const build = await docker(
    'build',
    '-q',
    // As in the build namespace: no step reaches a network (npm installs from the base's cache).
    '--network',
    'none',
    '-f',
    join(PROJECT_ROOT, entry.dockerfile),
    '--build-arg',
    `BASE=${base}`,
    '-t',
    TAG,
    join(PROJECT_ROOT, entry.context),
  );
  if (build.code !== 0) throw new Error(`docker build failed: ${build.out}`);
  [postgres, server] = await Promise.all([startPostgres(), startKubeApiServer({ namespaces: ['pharos'] })]);
  dir = await mkdtemp(join(tmpdir(), 'database-admin-'));
  await chmod(dir, 0o755);
}, 600_000);

afterAll(async () => {
  await postgres?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Host networking: the test servers listen on the host's loopback.
const run = (...args: string[]) => docker('run', '--rm', '--network', 'host', '--read-only', ...args);

describe('the database-admin image', () => {
  it('runs as UID 70 with Node 24 and the PostgreSQL client', async () => {
    const result = await run(TAG, 'sh', '-c', 'id -u; id -g; node --version; psql --version; pg_isready --version');
    expect(result.code, result.out).toBe(0);
    expect(result.out.split('\n').slice(0, 3)).toEqual(['70', '70', 'v24.21.0']);
    expect(result.out).toContain('psql (PostgreSQL) 15');
  });

  it('carries the inventory, the context registry and the migrations', async () => {
    const result = await run(TAG, 'node', 'scripts/provision-contexts.ts', '--json');
    expect(result.code, result.out).toBe(0);
    const plan = JSON.parse(result.out.split('\n')[0] as string) as {
      contexts: { context: string; migrations: string[] }[];
    };
    expect(plan.contexts.map((c) => c.context)).toEqual(['api', 'jobs']);
    expect(plan.contexts[0]?.migrations).toEqual(['0001_accounts.sql', '0002_sessions.sql']);
  });

  it('runs both hooks as their Jobs do: credentials into the API, then the databases from the mounted Secrets', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kubeconfig);
    await chmod(kubeconfig, 0o444);
    const credentials = await run(
      '-v',
      `${kubeconfig}:/kubeconfig:ro`,
      TAG,
      'node',
      'scripts/cluster-credentials.ts',
      '--inventory',
      'devops/secret-keys.json',
      '--namespace',
      'pharos',
      '--kubeconfig',
      '/kubeconfig',
    );
    expect(credentials.code, credentials.out).toBe(0);
    expect(credentials.out).toContain(
      'credentials: secret=metallo-credentials created keys=API_DATABASE_PASSWORD,JOBS_DATABASE_PASSWORD',
    );

    // The projected volume, as the kubelet writes it for fsGroup 70 and defaultMode 0440.
    const secrets = join(dir, 'secrets');
    await (await import('node:fs/promises')).mkdir(secrets, { mode: 0o755 });
    const kube = (await import('../../scripts/lib/ports/kube.ts')).kubeFromConfig(server.kubeConfig());
    const value = async (secret: string, key: string) =>
      Buffer.from(
        ((await kube.get('Secret', 'pharos', secret))?.['data'] as Record<string, string>)[key] as string,
        'base64',
      ).toString('utf8');
    for (const key of ['API_DATABASE_PASSWORD', 'JOBS_DATABASE_PASSWORD'])
      await writeFile(join(secrets, key), await value('metallo-credentials', key), { mode: 0o440 });
    await writeFile(join(secrets, 'POSTGRES_PASSWORD'), postgres.adminPassword, { mode: 0o440 });
    for (const f of ['API_DATABASE_PASSWORD', 'JOBS_DATABASE_PASSWORD', 'POSTGRES_PASSWORD'])
      await (await import('node:fs/promises')).chown(join(secrets, f), 0, 70);

    const provision = await run(
      '-v',
      `${secrets}:/var/run/secrets/pharos:ro`,
      TAG,
      'node',
      'scripts/provision-contexts.ts',
      '--secrets',
      '--secrets-dir',
      '/var/run/secrets/pharos',
      '--registry',
      'devops/contexts.json',
      '--host',
      postgres.host,
      '--port',
      String(postgres.port),
      '--wait',
      '30',
    );
    expect(provision.code, provision.out).toBe(0);
    expect(provision.out).toContain(
      'provision: context=api role=created database=created password=ok migrations applied=2 already=0',
    );
    expect(provision.out).toContain(
      'provision: context=jobs role=created database=created password=ok migrations applied=1 already=0',
    );
    expect(provision.out).not.toContain(postgres.adminPassword);
  });
});
