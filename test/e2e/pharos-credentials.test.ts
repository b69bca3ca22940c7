import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, startKubeApiServer } from '../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../support/kube-api-server/index.ts';
import { NODE, PROJECT_ROOT } from '../support/run-script.ts';
import { kubeFromConfig } from '../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../scripts/lib/ports/kube.ts';

// scripts/cluster-credentials.ts, run as the -3 hook runs it, against the Kubernetes API test server.
const NS = 'pharos';
let server: KubeApiServer;
let dir: string;
let kubeconfig: string;
let kube: Kube;

const INVENTORY = {
  schema: 1,
  keys: {
    POSTGRES_PASSWORD: { owners: ['postgres', 'metallo'] },
    API_DATABASE_PASSWORD: { owners: ['api', 'metallo'] },
    SESSION_SECRET: { owners: ['api'], length: 48 },
  },
};

interface Run {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

function credentials(inventory: object, ...args: string[]): Promise<Run> {
  const file = join(dir, `inventory-${Math.random().toString(36).slice(2)}.json`);
  return writeFile(file, JSON.stringify(inventory)).then(
    () =>
      new Promise((resolve) => {
        const child = spawn(NODE, [
          join(PROJECT_ROOT, 'scripts/cluster-credentials.ts'),
          '--inventory',
          file,
          '--namespace',
          NS,
          '--kubeconfig',
          kubeconfig,
          ...args,
        ]);
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d));
        child.stderr.on('data', (d: Buffer) => (stderr += d));
        child.on('close', (code) => resolve({ status: code ?? 1, stdout, stderr }));
      }),
  );
}

async function secret(name: string): Promise<Record<string, string> | undefined> {
  const object = (await kube.get('Secret', NS, name)) as { data?: Record<string, string> } | undefined;
  if (object === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(object.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}

async function resourceVersion(name: string): Promise<string | undefined> {
  return (await kube.get('Secret', NS, name))?.metadata.resourceVersion;
}

/** An operator's hand edit of one key. */
async function setKey(name: string, key: string, value: string): Promise<void> {
  await kube.mergePatch('Secret', NS, name, { data: { [key]: Buffer.from(value).toString('base64') } });
}

async function allValues(): Promise<string[]> {
  const out: string[] = [];
  for (const name of ['pharos-generated', 'api-credentials', 'metallo-credentials', 'postgres-credentials'])
    out.push(...Object.values((await secret(name)) ?? {}));
  return out;
}

async function deleteSecret(name: string): Promise<void> {
  await kube.delete('Secret', NS, name);
}

async function expectNoValueIn(run: Run): Promise<void> {
  const values = await allValues();
  expect(values.length).toBeGreaterThan(0);
  for (const value of values) {
    expect(run.stdout).not.toContain(value);
    expect(run.stderr).not.toContain(value);
  }
}

beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: [NS] });
  dir = await mkdtemp(join(tmpdir(), 'pharos-credentials-'));
  kube = kubeFromConfig(server.kubeConfig());
  // The script runs as the hook's service account, with exactly the Role the overlay gives it (wave -4): every
  // case below then also proves that Secrets get/create/patch is enough, since the test server enforces RBAC.
  const access = parseAllDocuments(
    await readFile(join(PROJECT_ROOT, 'gitops/manifests/pharos/overlays/devbox/credentials-access.yaml'), 'utf8'),
  ).map((d) => d.toJS() as { kind: string; metadata: { name: string } });
  const paths: Record<string, string> = {
    ServiceAccount: `api/v1/namespaces/${NS}/serviceaccounts`,
    Role: `apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`,
    RoleBinding: `apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`,
  };
  for (const doc of access) {
    const created = await fetch(`${server.url}/${paths[doc.kind]}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(doc),
    });
    if (created.status !== 201)
      throw new Error(`cannot create ${doc.kind}/${doc.metadata.name}: ${await created.text()}`);
  }
  server.addUser('pharos-credentials-token', `system:serviceaccount:${NS}:pharos-credentials`, [
    'system:serviceaccounts',
    `system:serviceaccounts:${NS}`,
    'system:authenticated',
  ]);
  kubeconfig = join(dir, 'kubeconfig');
  await server.writeKubeconfig(kubeconfig, NS, 'pharos-credentials-token');
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  for (const name of [
    'pharos-generated',
    'api-credentials',
    'metallo-credentials',
    'postgres-credentials',
    'worker-credentials',
  ])
    await deleteSecret(name);
});

describe('cluster-credentials (the pharos-credentials hook)', () => {
  it('keys named like Object.prototype members (constructor, toString) are generated and given like any other; __proto__ is refused', async () => {
    const members = {
      schema: 1,
      keys: { constructor: { owners: ['api'] }, toString: { owners: ['api'] } },
    };
    const run = await credentials(members);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(/nothing to do/);
    expect(Object.keys((await secret('api-credentials')) ?? {}).sort()).toEqual(['constructor', 'toString']);
    expect(Object.keys((await secret('pharos-generated')) ?? {}).sort()).toEqual(['constructor', 'toString']);
    const again = await credentials(members);
    expect([again.status, again.stdout + again.stderr]).toEqual([0, expect.stringMatching(/nothing to do/)]);
    // JSON.parse keeps "__proto__" as a key; the Kubernetes JavaScript client would drop it from the Secret.
    const file = join(dir, 'proto-key.json');
    await writeFile(file, '{"schema": 1, "keys": {"__proto__": {"owners": ["worker"]}}}');
    const proto = await new Promise<Run>((resolve) => {
      const child = spawn(NODE, [
        join(PROJECT_ROOT, 'scripts/cluster-credentials.ts'),
        ...['--inventory', file, '--namespace', NS, '--kubeconfig', kubeconfig],
      ]);
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      child.on('close', (code) => resolve({ status: code ?? 1, stdout: '', stderr }));
    });
    expect([proto.status, proto.stderr]).toEqual([
      2,
      expect.stringMatching(/keys\.__proto__: must not be "__proto__"/),
    ]);
    expect(await secret('worker-credentials')).toBeUndefined();
  });

  it('first run: records one value per key and gives each owner only its own keys, so shared keys agree', async () => {
    const run = await credentials(INVENTORY);
    expect(run.status, run.stderr).toBe(0);
    const record = await secret('pharos-generated');
    expect(Object.keys(record ?? {}).sort()).toEqual(['API_DATABASE_PASSWORD', 'POSTGRES_PASSWORD', 'SESSION_SECRET']);
    expect(record?.['SESSION_SECRET']).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(record?.['POSTGRES_PASSWORD']).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(await secret('api-credentials')).toEqual({
      API_DATABASE_PASSWORD: record?.['API_DATABASE_PASSWORD'],
      SESSION_SECRET: record?.['SESSION_SECRET'],
    });
    expect(await secret('metallo-credentials')).toEqual({
      API_DATABASE_PASSWORD: record?.['API_DATABASE_PASSWORD'],
      POSTGRES_PASSWORD: record?.['POSTGRES_PASSWORD'],
    });
    expect(await secret('postgres-credentials')).toEqual({ POSTGRES_PASSWORD: record?.['POSTGRES_PASSWORD'] });
    expect(run.stderr).toContain(
      'credentials: secret=pharos-generated created generated=API_DATABASE_PASSWORD,POSTGRES_PASSWORD,SESSION_SECRET recovered=-',
    );
    expect(run.stderr).toContain(
      'credentials: secret=api-credentials created keys=API_DATABASE_PASSWORD,SESSION_SECRET',
    );
    const labels = (await kube.get('Secret', NS, 'api-credentials'))?.metadata.labels;
    expect(labels).toEqual({ 'app.kubernetes.io/managed-by': 'pharos-credentials' });
    await expectNoValueIn(run);
  });

  it('rerun: nothing changes, not even a resourceVersion', async () => {
    expect((await credentials(INVENTORY)).status).toBe(0);
    const before = [await resourceVersion('pharos-generated'), await resourceVersion('api-credentials')];
    const values = await allValues();
    server.resetRequests();
    const run = await credentials(INVENTORY, '--json');
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      schema: 1,
      namespace: NS,
      changed: false,
      record: { created: false, added: [] },
    });
    expect(run.stderr).toContain('credentials: namespace=pharos nothing to do');
    expect(server.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(await allValues()).toEqual(values);
    expect([await resourceVersion('pharos-generated'), await resourceVersion('api-credentials')]).toEqual(before);
  });

  it('a key the inventory gains is added to the record and its owners; existing values stay', async () => {
    expect((await credentials(INVENTORY)).status).toBe(0);
    const before = await secret('pharos-generated');
    const grown = { ...INVENTORY, keys: { ...INVENTORY.keys, WEBHOOK_TOKEN: { owners: ['api', 'worker'] } } };
    const run = await credentials(grown, '--json');
    expect(run.status, run.stderr).toBe(0);
    const after = await secret('pharos-generated');
    expect(after).toMatchObject(before ?? {});
    expect(after?.['WEBHOOK_TOKEN']).toMatch(/^[A-Za-z0-9]{32}$/);
    expect((await secret('api-credentials'))?.['WEBHOOK_TOKEN']).toBe(after?.['WEBHOOK_TOKEN']);
    expect(await secret('worker-credentials')).toEqual({ WEBHOOK_TOKEN: after?.['WEBHOOK_TOKEN'] });
    expect(await secret('metallo-credentials')).not.toHaveProperty('WEBHOOK_TOKEN');
    const report = JSON.parse(run.stdout) as {
      record: { added: string[] };
      owners: { secret: string; added: string[]; created: boolean }[];
    };
    expect(report.record.added).toEqual(['WEBHOOK_TOKEN']);
    expect(report.owners.find((o) => o.secret === 'worker-credentials')).toMatchObject({
      created: true,
      added: ['WEBHOOK_TOKEN'],
    });
    await deleteSecret('worker-credentials');
  });

  it('refuses a Secret that differs from the record and writes nothing (exit 3)', async () => {
    expect((await credentials(INVENTORY)).status).toBe(0);
    await setKey('api-credentials', 'SESSION_SECRET', 'hand-edited-value');
    const rv = await resourceVersion('api-credentials');
    const record = await secret('pharos-generated');
    const grown = { ...INVENTORY, keys: { ...INVENTORY.keys, NEW_KEY: { owners: ['api'] } } };
    const run = await credentials(grown);
    expect(run.status).toBe(3);
    expect(run.stderr).toContain(
      'cluster-credentials: error [tampered]: Refusing to write credentials: "api-credentials/SESSION_SECRET" differs from the record "pharos-generated"',
    );
    expect(run.stderr).not.toContain('hand-edited-value');
    expect(await secret('pharos-generated')).toEqual(record);
    expect(await secret('api-credentials')).not.toHaveProperty('NEW_KEY');
    expect(await resourceVersion('api-credentials')).toBe(rv);
  });

  it("recovers a lost record from the workloads' Secrets, generating only what no Secret holds", async () => {
    expect((await credentials(INVENTORY)).status).toBe(0);
    const record = await secret('pharos-generated');
    await deleteSecret('pharos-generated');
    await deleteSecret('postgres-credentials');
    const run = await credentials(INVENTORY);
    expect(run.status, run.stderr).toBe(0);
    expect(await secret('pharos-generated')).toEqual(record);
    expect(run.stderr).toContain(
      'secret=pharos-generated created generated=- recovered=API_DATABASE_PASSWORD,POSTGRES_PASSWORD,SESSION_SECRET',
    );
    expect(await secret('postgres-credentials')).toEqual({ POSTGRES_PASSWORD: record?.['POSTGRES_PASSWORD'] });
    await expectNoValueIn(run);
  });

  it('refuses to recover a key that two owners hold with different values', async () => {
    expect((await credentials(INVENTORY)).status).toBe(0);
    await deleteSecret('pharos-generated');
    await setKey('api-credentials', 'API_DATABASE_PASSWORD', 'other');
    const run = await credentials(INVENTORY);
    expect(run.status).toBe(3);
    expect(run.stderr).toContain(
      'error [disagree]: Cannot recover key "API_DATABASE_PASSWORD" for "pharos-generated": the Secrets hold different values',
    );
    expect(await secret('pharos-generated')).toBeUndefined();
  });

  it('names the inventory file, the field and the value of a bad inventory (exit 2), touching nothing', async () => {
    const run = await credentials({
      schema: 1,
      keys: { 'bad-key': { owners: ['api'] }, OK: { owners: ['Not A Label'], length: 8 } },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/inventory-[a-z0-9]+\.json: keys\.bad-key: must be a letter or "_" followed by letters/);
    expect(run.stderr).toMatch(/keys\.OK\.owners\[0\]: must be a DNS label such as "api" \(value "Not A Label"\)/);
    expect(run.stderr).toMatch(/keys\.OK\.length: Too small/);
    expect(await secret('pharos-generated')).toBeUndefined();
  });

  it('an API server answering 503 fails the run with exit 1 and nothing written; the retried run succeeds', async () => {
    server.unavailable(1);
    const first = await credentials(INVENTORY);
    expect(first.status).toBe(1);
    expect(first.stderr).toContain('error [unavailable]');
    expect(await secret('pharos-generated')).toBeUndefined();
    const second = await credentials(INVENTORY);
    expect(second.status, second.stderr).toBe(0);
  });

  it('two runs at once end with one record that every owner agrees with', async () => {
    const [a, b] = await Promise.all([credentials(INVENTORY), credentials(INVENTORY)]);
    expect([a.status, b.status], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
    const record = await secret('pharos-generated');
    expect(await secret('api-credentials')).toEqual({
      API_DATABASE_PASSWORD: record?.['API_DATABASE_PASSWORD'],
      SESSION_SECRET: record?.['SESSION_SECRET'],
    });
    expect(await secret('postgres-credentials')).toEqual({ POSTGRES_PASSWORD: record?.['POSTGRES_PASSWORD'] });
  });

  it("the hook's account can do nothing beyond Secrets get/create/patch in its namespace: the API server forbids the rest", async () => {
    const as = (path: string, method = 'GET') =>
      fetch(`${server.url}/${path}`, { method, headers: { authorization: 'Bearer pharos-credentials-token' } });
    await credentials(INVENTORY);
    const deleted = await as(`api/v1/namespaces/${NS}/secrets/api-credentials`, 'DELETE');
    expect(deleted.status).toBe(403);
    expect(((await deleted.json()) as { message: string }).message).toBe(
      `secrets "api-credentials" is forbidden: User "system:serviceaccount:${NS}:pharos-credentials" cannot delete resource "secrets" in API group "" in the namespace "${NS}"`,
    );
    expect((await as(`api/v1/namespaces/${NS}/secrets`)).status).toBe(403);
    expect((await as(`api/v1/namespaces/${NS}/configmaps/x`)).status).toBe(403);
    expect((await as('api/v1/namespaces/default/secrets/x')).status).toBe(403);
    expect((await as(`api/v1/namespaces/${NS}/secrets/api-credentials`)).status).toBe(200);
  });

  it('answers --help with exit 0', async () => {
    const run = await new Promise<Run>((resolve) => {
      const child = spawn(NODE, [join(PROJECT_ROOT, 'scripts/cluster-credentials.ts'), '--help']);
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.on('close', (code) => resolve({ status: code ?? 1, stdout, stderr: '' }));
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('pharos-generated');
  });
});
