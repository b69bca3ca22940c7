import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeApiServer } from '../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../support/kube-api-server/index.ts';

// The real kubectl against the Kubernetes API test server: what it relies on must behave as on a real cluster.
let server: KubeApiServer;
let dir: string;
beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: ['k'] });
  dir = await mkdtemp(join(tmpdir(), 'kubectl-'));
  await server.writeKubeconfig(join(dir, 'kubeconfig'));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function kubectl(...args: string[]): Promise<{ code: number; out: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    // --validate=false: the test server serves no OpenAPI documents (docs/test-cluster.md).
    execFile(
      'kubectl',
      [...args],
      { env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') }, timeout: 20_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          out: `${stdout}${stderr}`.trim(),
          ms: Date.now() - started,
        });
      },
    );
  });
}

const JOB = `apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: k}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
`;
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: k}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: a, image: busybox}
      - {name: b, image: busybox}
`;

describe('the real kubectl against the test API server', () => {
  it('auth whoami reads the SelfSubjectReview: over plain HTTP kubectl sends no token, so it is anonymous', async () => {
    const whoami = await kubectl(
      'auth',
      'whoami',
      '-o',
      'jsonpath={.status.userInfo.username} {.status.userInfo.groups}',
    );
    expect(whoami, whoami.out).toMatchObject({ code: 0, out: 'system:anonymous ["system:unauthenticated"]' });
  });

  it('refuses to write into a namespace that does not exist, and writes once it is created', async () => {
    expect(await kubectl('create', 'configmap', 'x', '-n', 'later')).toMatchObject({
      code: 1,
      out: 'error: failed to create configmap: namespaces "later" not found',
    });
    expect((await kubectl('create', 'namespace', 'later')).code).toBe(0);
    expect((await kubectl('create', 'configmap', 'x', '-n', 'later')).out).toBe('configmap/x created');
    const deleted = await kubectl('delete', 'namespace', 'later');
    expect(deleted.out).toBe('namespace "later" deleted');
    expect((await kubectl('get', 'configmap', 'x', '-n', 'later')).code).toBe(1);
  });

  it('delete --dry-run=server leaves the Job; kubectl wait times out on time instead of hanging', async () => {
    await writeFile(join(dir, 'job.yaml'), JOB);
    expect((await kubectl('create', '-f', join(dir, 'job.yaml'), '--validate=false')).out).toBe(
      'job.batch/migrate created',
    );
    expect((await kubectl('delete', 'job', 'migrate', '-n', 'k', '--dry-run=server')).out).toBe(
      'job.batch "migrate" deleted (server dry run)',
    );
    expect((await kubectl('get', 'job', 'migrate', '-n', 'k', '-o', 'jsonpath={.metadata.name}')).out).toBe('migrate');
    const wait = await kubectl('wait', '--for=condition=Complete', 'job/migrate', '-n', 'k', '--timeout=1s');
    expect(wait.code).toBe(1);
    expect(wait.out).toContain('timed out waiting for the condition');
    expect(wait.ms).toBeLessThan(8000);
  });

  it('delete waits until the Job is gone, so creating it again right after succeeds', async () => {
    expect((await kubectl('delete', 'job', 'migrate', '-n', 'k')).out).toBe('job.batch "migrate" deleted');
    expect((await kubectl('create', '-f', join(dir, 'job.yaml'), '--validate=false')).out).toBe(
      'job.batch/migrate created',
    );
  });

  it('scale writes spec.replicas through the scale subresource; a strategic merge patch merges containers by name', async () => {
    await writeFile(join(dir, 'deployment.yaml'), DEPLOYMENT);
    expect((await kubectl('create', '-f', join(dir, 'deployment.yaml'), '--validate=false')).code).toBe(0);
    expect((await kubectl('scale', 'deployment', 'web', '-n', 'k', '--replicas=3')).out).toBe(
      'deployment.apps/web scaled',
    );
    expect(
      (
        await kubectl(
          'patch',
          'deploy',
          'web',
          '-n',
          'k',
          '-p',
          '{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"busybox:2"}]}}}}',
        )
      ).out,
    ).toBe('deployment.apps/web patched');
    const read = await kubectl(
      'get',
      'deployment',
      'web',
      '-n',
      'k',
      '-o',
      'jsonpath={.spec.replicas} {.spec.template.spec.containers[*].image}',
    );
    expect(read.out).toBe('3 busybox busybox:2');
  });
});
