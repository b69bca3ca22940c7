import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, KubeError, kubeFromConfig, kubeFromFile } from '../../../scripts/lib/ports/index.ts';
import type { Kube, KubeObject } from '../../../scripts/lib/ports/index.ts';
import { startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';

let server: KubeApiServer;
let kube: Kube;
let ns: string;
let counter = 0;

beforeAll(async () => {
  server = await startKubeApiServer();
  kube = kubeFromConfig(server.kubeConfig());
});
afterAll(async () => server.close());
beforeEach(() => {
  ns = `t${++counter}`;
  server.addNamespace(ns);
});

const configMap = (name: string, data: Record<string, string>, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

describe('Kube port over the test API server', () => {
  it('create assigns uid, creationTimestamp and resourceVersion; get returns the same object', async () => {
    const created = await kube.create('ConfigMap', ns, configMap('owner', { revision: 'a' }));
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(created.metadata.resourceVersion).toMatch(/^\d+$/);
    const read = await kube.get('ConfigMap', ns, 'owner');
    expect(read?.['data']).toEqual({ revision: 'a' });
    expect(read?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(read?.kind).toBe('ConfigMap');
  });

  it('get returns undefined for a missing object and create refuses a taken name', async () => {
    expect(await kube.get('ConfigMap', ns, 'nope')).toBeUndefined();
    await kube.create('ConfigMap', ns, configMap('taken', {}));
    const error = await kube.create('ConfigMap', ns, configMap('taken', {})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeError);
    expect((error as KubeError).code).toBe('already-exists');
    expect((error as KubeError).message).toContain('"taken" already exists');
  });

  it('replace with a stale resourceVersion is a ConflictError and changes nothing', async () => {
    const first = await kube.create('ConfigMap', ns, configMap('cas', { v: '1' }));
    const second = await kube.replace('ConfigMap', ns, { ...first, data: { v: '2' } });
    expect(Number(second.metadata.resourceVersion)).toBeGreaterThan(Number(first.metadata.resourceVersion));
    const stale = kube.replace('ConfigMap', ns, { ...first, data: { v: 'lost update' } });
    await expect(stale).rejects.toBeInstanceOf(ConflictError);
    expect((await kube.get('ConfigMap', ns, 'cas'))?.['data']).toEqual({ v: '2' });
  });

  it('two racing compare-and-swap writers: exactly one wins', async () => {
    const base = await kube.create('ConfigMap', ns, configMap('race', {}));
    const results = await Promise.allSettled(
      ['a', 'b', 'c'].map((who) =>
        kube.mergePatch('ConfigMap', ns, 'race', {
          metadata: { resourceVersion: base.metadata.resourceVersion },
          data: { holder: who },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof ConflictError)).toHaveLength(2);
  });

  it('merge patch follows RFC 7386: null deletes a key, objects merge, lists replace', async () => {
    await kube.create('ConfigMap', ns, {
      ...configMap('merge', { keep: 'k', drop: 'd' }),
      metadata: { name: 'merge', labels: { a: '1' } },
    });
    const patched = await kube.mergePatch('ConfigMap', ns, 'merge', {
      data: { drop: null, add: 'n' },
      metadata: { labels: { b: '2' } },
    });
    expect(patched['data']).toEqual({ keep: 'k', add: 'n' });
    expect(patched.metadata.labels).toEqual({ a: '1', b: '2' });
  });

  it('a write that changes nothing keeps the resourceVersion', async () => {
    const created = await kube.create('ConfigMap', ns, configMap('same', { x: '1' }));
    const again = await kube.mergePatch('ConfigMap', ns, 'same', { data: { x: '1' } });
    expect(again.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('JSON patch applies add/replace/remove and a failed test is a ConflictError leaving the object intact', async () => {
    await kube.create('ConfigMap', ns, configMap('jp', { lease: 'x', other: 'o' }));
    const ok = await kube.jsonPatch('ConfigMap', ns, 'jp', [
      { op: 'test', path: '/data/lease', value: 'x' },
      { op: 'replace', path: '/data/lease', value: 'y' },
      { op: 'remove', path: '/data/other' },
      { op: 'add', path: '/data/new', value: 'n' },
    ]);
    expect(ok['data']).toEqual({ lease: 'y', new: 'n' });
    const failed = await kube
      .jsonPatch('ConfigMap', ns, 'jp', [
        { op: 'test', path: '/data/lease', value: 'x' },
        { op: 'remove', path: '/data/lease' },
      ])
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ConflictError);
    expect((failed as ConflictError).status).toBe(422);
    expect((await kube.get('ConfigMap', ns, 'jp'))?.['data']).toEqual({ lease: 'y', new: 'n' });
  });

  it('list filters by label selectors (=, ==, !=, in, notin, exists, !exists) within one namespace', async () => {
    await kube.create('ConfigMap', ns, configMap('a', {}, { tier: 'web', env: 'dev' }));
    await kube.create('ConfigMap', ns, configMap('b', {}, { tier: 'db', env: 'prod' }));
    await kube.create('ConfigMap', ns, configMap('c', {}, { tier: 'cache' }));
    server.addNamespace(`${ns}-other`);
    await kube.create('ConfigMap', `${ns}-other`, configMap('d', {}, { tier: 'web' }));
    const names = async (labelSelector: string) =>
      (await kube.list('ConfigMap', ns, { labelSelector })).map((o) => o.metadata.name);
    expect(await names('tier=web')).toEqual(['a']);
    expect(await names('tier==db')).toEqual(['b']);
    expect(await names('tier!=web')).toEqual(['b', 'c']);
    expect(await names('tier in (web,cache)')).toEqual(['a', 'c']);
    expect(await names('tier notin (web, cache)')).toEqual(['b']);
    expect(await names('env')).toEqual(['a', 'b']);
    expect(await names('!env')).toEqual(['c']);
    expect(await names('env,tier!=db')).toEqual(['a']);
    expect(await names('')).toEqual(['a', 'b', 'c']);
    const items = await kube.list('ConfigMap', ns);
    expect(items.every((i) => i.kind === 'ConfigMap')).toBe(true);
  });

  it('an invalid label selector is refused as invalid', async () => {
    const error = await kube.list('ConfigMap', ns, { labelSelector: 'a in (x' }).catch((e: unknown) => e);
    expect((error as KubeError).code).toBe('invalid');
  });

  it('Deployment status is only written through the status subresource', async () => {
    const dep: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'r/web@sha256:' + 'a'.repeat(64) }] },
        },
      },
      status: { availableReplicas: 99 },
    };
    const created = await kube.create('Deployment', ns, dep);
    expect(created['status']).toBeUndefined();
    expect(created.metadata.generation).toBe(1);
    const withStatus = await kube.mergePatchStatus('Deployment', ns, 'web', {
      status: { availableReplicas: 2, observedGeneration: 1 },
    });
    expect(withStatus['status']).toEqual({ availableReplicas: 2, observedGeneration: 1 });
    expect(withStatus.metadata.generation).toBe(1);
    const scaled = await kube.mergePatch('Deployment', ns, 'web', {
      spec: { replicas: 0 },
      status: { availableReplicas: 0 },
    });
    expect((scaled['status'] as { availableReplicas: number }).availableReplicas).toBe(2);
    expect(scaled.metadata.generation).toBe(2);
    const replaced = await kube.replaceStatus('Deployment', ns, { ...scaled, status: { availableReplicas: 0 } });
    expect(replaced['status']).toEqual({ availableReplicas: 0 });
  });

  it('Applications and AppProjects are custom resources without a status subresource, as Argo CD installs them', async () => {
    const app = await kube.create('Application', ns, {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'root' },
      spec: {
        project: 'default',
        source: { repoURL: 'file:///x', path: 'apps', targetRevision: 'HEAD' },
        destination: { namespace: ns, server: 'https://kubernetes.default.svc' },
      },
    });
    const withStatus = await kube.mergePatch('Application', ns, 'root', { status: { sync: { status: 'Synced' } } });
    expect(withStatus['status']).toEqual({ sync: { status: 'Synced' } });
    expect(withStatus.metadata.generation).toBe(2);
    await expect(kube.mergePatchStatus('Application', ns, 'root', { status: {} })).rejects.toMatchObject({
      code: 'not-found',
    });
    const project = await kube.create('AppProject', ns, {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AppProject',
      metadata: { name: 'p' },
      spec: { syncWindows: [] },
    });
    const stale = kube.jsonPatch('AppProject', ns, 'p', [
      { op: 'test', path: '/metadata/resourceVersion', value: app.metadata.resourceVersion },
      { op: 'add', path: '/spec/syncWindows/-', value: { kind: 'deny' } },
    ]);
    await expect(stale).rejects.toBeInstanceOf(ConflictError);
    expect((await kube.get('AppProject', ns, 'p'))?.metadata.resourceVersion).toBe(project.metadata.resourceVersion);
  });

  it('reads and patches Services (takeover points them elsewhere)', async () => {
    await kube.create('Service', ns, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
    });
    const patched = await kube.mergePatch('Service', ns, 'web', { spec: { selector: { app: 'web-takeover' } } });
    expect((patched['spec'] as { selector: Record<string, string> }).selector).toEqual({ app: 'web-takeover' });
  });

  it('Secret stringData is folded into base64 data', async () => {
    const secret = await kube.create('Secret', ns, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { token: 'hunter2' },
    });
    expect(secret['data']).toEqual({ token: Buffer.from('hunter2').toString('base64') });
    expect(secret['stringData']).toBeUndefined();
  });

  it('delete removes the object, reports an absent one, and honours a resourceVersion precondition', async () => {
    const cm = await kube.create('ConfigMap', ns, configMap('gone', {}));
    await kube.mergePatch('ConfigMap', ns, 'gone', { data: { moved: 'on' } });
    await expect(
      kube.delete('ConfigMap', ns, 'gone', { resourceVersion: cm.metadata.resourceVersion }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(await kube.delete('ConfigMap', ns, 'gone')).toBe(true);
    expect(await kube.delete('ConfigMap', ns, 'gone')).toBe(false);
    expect(await kube.get('ConfigMap', ns, 'gone')).toBeUndefined();
  });

  it('reads Pod logs and Jobs', async () => {
    await kube.create('Job', ns, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'build', labels: { 'app.kubernetes.io/name': 'build' } },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'b', image: 'busybox' }] } } },
    });
    await kube.create('Pod', ns, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'build-x' },
      spec: { containers: [{ name: 'b', image: 'busybox' }] },
    });
    server.setPodLog(ns, 'build-x', 'step 1\nstep 2\n');
    expect(await kube.podLogs(ns, 'build-x')).toBe('step 1\nstep 2\n');
    expect(
      (await kube.list('Job', ns, { labelSelector: 'app.kubernetes.io/name=build' })).map((j) => j.metadata.name),
    ).toEqual(['build']);
  });

  it('counts every API request it sends', async () => {
    const before = kube.requestCount();
    const serverBefore = server.requestCount();
    await kube.create('ConfigMap', ns, configMap('count', {}));
    await kube.get('ConfigMap', ns, 'count');
    await kube.get('ConfigMap', ns, 'missing');
    await kube.create('Pod', ns, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    await kube.podLogs(ns, 'p');
    expect(kube.requestCount() - before).toBe(5);
    expect(server.requestCount() - serverBefore).toBe(5);
  });

  it('503 and refused connections are retryable unavailable errors, and the server recovers', async () => {
    await kube.create('ConfigMap', ns, configMap('up', {}));
    server.unavailable(1);
    const busy = await kube.get('ConfigMap', ns, 'up').catch((e: unknown) => e);
    expect(busy).toMatchObject({ code: 'unavailable', retryable: true, status: 503 });
    expect(await kube.get('ConfigMap', ns, 'up')).toBeDefined();
    await server.refuseConnections();
    try {
      const down = await kube.get('ConfigMap', ns, 'up').catch((e: unknown) => e);
      expect(down).toMatchObject({ code: 'unavailable', retryable: true });
      expect((down as Error).message).toContain('ECONNREFUSED');
    } finally {
      await server.recover();
    }
    expect((await kube.get('ConfigMap', ns, 'up'))?.metadata.name).toBe('up');
  });

  it('whoAmI() reports the identity the server authenticates, as a SelfSubjectReview does', async () => {
    expect(await kube.whoAmI()).toEqual({
      username: 'system:admin',
      groups: ['system:masters', 'system:authenticated'],
    });
    server.addUser('developer-token', 'alice', ['developers', 'system:authenticated']);
    expect(await kubeFromConfig(server.kubeConfig(ns, 'developer-token')).whoAmI()).toEqual({
      username: 'alice',
      groups: ['developers', 'system:authenticated'],
    });
  });

  it('a token the server does not know is refused with 401 on every request', async () => {
    const stranger = kubeFromConfig(server.kubeConfig(ns, 'no-such-token'));
    await expect(stranger.whoAmI()).rejects.toMatchObject({
      code: 'request-failed',
      status: 401,
      message: expect.stringContaining('Unauthorized'),
    });
    await expect(stranger.get('ConfigMap', ns, 'anything')).rejects.toMatchObject({ status: 401 });
  });

  it('builds from a kubeconfig file and names a bad one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeconfig-'));
    try {
      const path = join(dir, 'config');
      await server.writeKubeconfig(path, ns);
      const fromFile = kubeFromFile(path);
      await fromFile.create('ConfigMap', ns, configMap('via-file', {}));
      expect(await kube.get('ConfigMap', ns, 'via-file')).toBeDefined();
      expect(() => kubeFromFile(join(dir, 'missing'))).toThrow(/Cannot load kubeconfig ".*missing"/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('test API server validation', () => {
  it('refuses to change a Job template or a Deployment selector with 422, as the real server does', async () => {
    const job = await kube.create('Job', ns, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'm', image: 'migrate:1' }] } } },
    });
    const error = await kube
      .mergePatch('Job', ns, 'migrate', {
        spec: { template: { spec: { containers: [{ name: 'm', image: 'migrate:2' }] } } },
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid', status: 422 });
    expect((error as Error).message).toContain('spec.template: Invalid value');
    expect((error as Error).message).toContain('field is immutable');
    expect((await kube.get('Job', ns, 'migrate'))?.metadata.resourceVersion).toBe(job.metadata.resourceVersion);
    await kube.create('Deployment', ns, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { a: '1' } }, template: { metadata: { labels: { a: '1' } } } },
    });
    await expect(
      kube.mergePatch('Deployment', ns, 'd', { spec: { selector: { matchLabels: { a: '2' } } } }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(kube.mergePatch('Deployment', ns, 'd', { spec: { replicas: 3 } })).resolves.toBeDefined();
  });
});
