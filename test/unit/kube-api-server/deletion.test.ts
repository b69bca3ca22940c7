import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiException, BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';

// Kubernetes facts these tests pin (kubernetes.io/docs/concepts/architecture/garbage-collection,
// /concepts/workloads/pods/pod-lifecycle#pod-termination, /concepts/overview/working-with-objects/finalizers).
let server: KubeApiServer;
let core: CoreV1Api;
let batch: BatchV1Api;
beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: ['gc'] });
  core = server.kubeConfig().makeApiClient(CoreV1Api);
  batch = server.kubeConfig().makeApiClient(BatchV1Api);
});
afterAll(async () => server.close());

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const code = (e: unknown): number | undefined => (e instanceof ApiException ? e.code : undefined);
const job = (name: string) => ({
  metadata: { name },
  spec: {
    backoffLimit: 0,
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
  },
});

async function jobWithPod(name: string, pod: { nodeName?: string } = {}) {
  const created = await batch.createNamespacedJob({ namespace: 'gc', body: job(name) });
  const uid = created.metadata?.uid as string;
  const ownerReferences = [
    { apiVersion: 'batch/v1', kind: 'Job', name, uid, controller: true, blockOwnerDeletion: true },
  ];
  const labels = { 'job-name': name, 'controller-uid': uid, 'batch.kubernetes.io/controller-uid': uid };
  await core.createNamespacedPod({
    namespace: 'gc',
    body: {
      metadata: { name: `${name}-pod`, labels, ownerReferences },
      spec: { nodeName: pod.nodeName, containers: [{ name: 'c', image: 'busybox' }] },
    },
  });
  return uid;
}

const readJob = (name: string) => batch.readNamespacedJob({ namespace: 'gc', name }).catch((e: unknown) => code(e));
const readPod = (name: string) => core.readNamespacedPod({ namespace: 'gc', name }).catch((e: unknown) => code(e));

describe('deleting a Job (batch/v1 defaults to orphaning its Pods)', () => {
  it('without a propagation policy keeps the Job with an orphan finalizer for a while, refuses a new Job of that name with 409, then orphans the Pod', async () => {
    await jobWithPod('plain');
    server.pauseControllers();
    await batch.deleteNamespacedJob({ namespace: 'gc', name: 'plain' });
    const terminating = await batch.readNamespacedJob({ namespace: 'gc', name: 'plain' });
    expect(terminating.metadata?.finalizers).toEqual(['orphan']);
    expect(terminating.metadata?.deletionTimestamp).toBeDefined();
    expect(
      code(await batch.createNamespacedJob({ namespace: 'gc', body: job('plain') }).catch((e: unknown) => e)),
    ).toBe(409);
    server.resumeControllers();
    expect(
      await until(
        () => readJob('plain'),
        (v) => v === 404,
      ),
    ).toBe(404);
    const pod = await core.readNamespacedPod({ namespace: 'gc', name: 'plain-pod' });
    expect(pod.metadata?.ownerReferences).toBeUndefined();
    expect(pod.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('with propagationPolicy Background goes at once, and the garbage collector deletes its Pods afterwards', async () => {
    await jobWithPod('bg');
    await batch.deleteNamespacedJob({ namespace: 'gc', name: 'bg', propagationPolicy: 'Background' });
    expect(await readJob('bg')).toBe(404);
    expect(
      await until(
        () => readPod('bg-pod'),
        (v) => v === 404,
      ),
    ).toBe(404);
  });

  it('with propagationPolicy Foreground stays, with a foregroundDeletion finalizer, until its Pods are gone', async () => {
    await jobWithPod('fg', { nodeName: 'node-1' });
    server.pauseControllers();
    await batch.deleteNamespacedJob({ namespace: 'gc', name: 'fg', propagationPolicy: 'Foreground' });
    const terminating = await batch.readNamespacedJob({ namespace: 'gc', name: 'fg' });
    expect(terminating.metadata?.finalizers).toEqual(['foregroundDeletion']);
    server.resumeControllers();
    // The Pod runs on a node: it terminates gracefully first (deletionTimestamp set), and only then both go.
    const pod = await until(
      () => readPod('fg-pod'),
      (v) => v === 404 || (typeof v === 'object' && v.metadata?.deletionTimestamp !== undefined),
    );
    expect(pod === 404 || (typeof pod === 'object' && pod.metadata?.deletionGracePeriodSeconds === 30)).toBe(true);
    expect(
      await until(
        () => readJob('fg'),
        (v) => v === 404,
      ),
    ).toBe(404);
    expect(await readPod('fg-pod')).toBe(404);
  });

  it('with dryRun=All changes nothing (kubectl delete --dry-run=server)', async () => {
    await jobWithPod('dry');
    await batch.deleteNamespacedJob({ namespace: 'gc', name: 'dry', propagationPolicy: 'Background', dryRun: 'All' });
    const still = await batch.readNamespacedJob({ namespace: 'gc', name: 'dry' });
    expect(still.metadata?.deletionTimestamp).toBeUndefined();
  });
});

describe('Pod graceful deletion', () => {
  it('a running Pod on a node terminates gracefully (deletionTimestamp = now + terminationGracePeriodSeconds) before it goes', async () => {
    await core.createNamespacedPod({
      namespace: 'gc',
      body: {
        metadata: { name: 'runner' },
        spec: { nodeName: 'node-1', terminationGracePeriodSeconds: 5, containers: [{ name: 'c', image: 'busybox' }] },
      },
    });
    server.pauseControllers();
    const answer = await core.deleteNamespacedPod({ namespace: 'gc', name: 'runner' });
    expect(answer.metadata?.deletionGracePeriodSeconds).toBe(5);
    const read = await core.readNamespacedPod({ namespace: 'gc', name: 'runner' });
    expect(Date.parse(read.metadata?.deletionTimestamp as unknown as string) - Date.now()).toBeGreaterThan(3000);
    server.resumeControllers();
    expect(
      await until(
        () => readPod('runner'),
        (v) => v === 404,
      ),
    ).toBe(404);
  });

  it('a Pod never scheduled goes at once, as a finished one does', async () => {
    await core.createNamespacedPod({
      namespace: 'gc',
      body: { metadata: { name: 'pending' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    });
    await core.deleteNamespacedPod({ namespace: 'gc', name: 'pending' });
    expect(await readPod('pending')).toBe(404);
  });
});

describe('finalizers', () => {
  it('an object with a finalizer stays Terminating until a client removes it; no finalizer may be added meanwhile', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'gc',
      body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } },
    });
    await core.deleteNamespacedConfigMap({ namespace: 'gc', name: 'held' });
    const held = await core.readNamespacedConfigMap({ namespace: 'gc', name: 'held' });
    expect(held.metadata?.deletionTimestamp).toBeDefined();
    const added = await core
      .replaceNamespacedConfigMap({
        namespace: 'gc',
        name: 'held',
        body: { ...held, metadata: { ...held.metadata, finalizers: ['example.com/hold', 'example.com/more'] } },
      })
      .catch((e: unknown) => e);
    expect(code(added)).toBe(422);
    await core.replaceNamespacedConfigMap({
      namespace: 'gc',
      name: 'held',
      body: { ...held, metadata: { ...held.metadata, finalizers: [] } },
    });
    expect(await core.readNamespacedConfigMap({ namespace: 'gc', name: 'held' }).catch((e: unknown) => code(e))).toBe(
      404,
    );
  });
});

describe('foreground deletion waits for a dependent that has a finalizer of its own', () => {
  it("keeps the owner until a client removes the dependent's finalizer, then both go", async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: 'gc', body: { metadata: { name: 'owner' } } });
    const ownerReferences = [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'owner',
        uid: owner.metadata?.uid as string,
        blockOwnerDeletion: true,
      },
    ];
    await core.createNamespacedConfigMap({
      namespace: 'gc',
      body: { metadata: { name: 'dependent', ownerReferences, finalizers: ['example.com/hold'] } },
    });
    await core.deleteNamespacedConfigMap({ namespace: 'gc', name: 'owner', propagationPolicy: 'Foreground' });
    const waiting = await until(
      () => core.readNamespacedConfigMap({ namespace: 'gc', name: 'dependent' }),
      (d) => d.metadata?.deletionTimestamp !== undefined,
    );
    await new Promise((r) => setTimeout(r, 100));
    expect((await core.readNamespacedConfigMap({ namespace: 'gc', name: 'owner' })).metadata?.finalizers).toEqual([
      'foregroundDeletion',
    ]);
    await core.replaceNamespacedConfigMap({
      namespace: 'gc',
      name: 'dependent',
      body: { ...waiting, metadata: { ...waiting.metadata, finalizers: [] } },
    });
    expect(
      await until(
        () => core.readNamespacedConfigMap({ namespace: 'gc', name: 'owner' }).catch((e: unknown) => code(e)),
        (v) => v === 404,
      ),
    ).toBe(404);
  });
});

describe('namespaces', () => {
  it('a write into a namespace that does not exist answers 404 namespaces "x" not found', async () => {
    const error = await core
      .createNamespacedConfigMap({ namespace: 'nowhere', body: { metadata: { name: 'x' } } })
      .catch((e: unknown) => e);
    expect(code(error)).toBe(404);
    expect(String((error as ApiException<string>).body)).toContain('namespaces \\"nowhere\\" not found');
  });

  it('a deleted namespace is Terminating (new content forbidden) until the namespace controller has emptied it', async () => {
    await core.createNamespace({ body: { metadata: { name: 'doomed' } } });
    await core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'x' } } });
    server.pauseControllers();
    await core.deleteNamespace({ name: 'doomed' });
    expect((await core.readNamespace({ name: 'doomed' })).status?.phase).toBe('Terminating');
    expect(
      code(
        await core
          .createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'y' } } })
          .catch((e: unknown) => e),
      ),
    ).toBe(403);
    server.resumeControllers();
    expect(
      await until(
        () => core.readNamespace({ name: 'doomed' }).catch((e: unknown) => code(e)),
        (v) => v === 404,
      ),
    ).toBe(404);
    expect(await core.readNamespacedConfigMap({ namespace: 'doomed', name: 'x' }).catch((e: unknown) => code(e))).toBe(
      404,
    );
  });
});

describe('updates the real server refuses', () => {
  it('a write naming another uid is a 409 precondition failure', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: 'gc', body: { metadata: { name: 'uid' } } });
    const error = await core
      .replaceNamespacedConfigMap({
        namespace: 'gc',
        name: 'uid',
        body: { ...cm, metadata: { ...cm.metadata, uid: '00000000-0000-0000-0000-000000000000' } },
      })
      .catch((e: unknown) => e);
    expect(code(error)).toBe(409);
    expect(String((error as ApiException<string>).body)).toContain('Precondition failed: UID in precondition');
  });
});
