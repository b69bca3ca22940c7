import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  remainingWriters,
  runningWriters,
  WRITER_SELECTOR,
} from '../../../../scripts/lib/host/chart/writer-workloads.ts';
import type { Kube } from '../../../../scripts/lib/ports/kube.ts';
import type { KubeObject } from '../../../../scripts/lib/ports/kube-kinds.ts';

const controller = (kind: string | undefined, name: string, status?: Record<string, unknown>): KubeObject => ({
  ...(kind === undefined ? {} : { kind }),
  metadata: { name },
  ...(status === undefined ? {} : { status }),
});
const pod = (name: string, phase?: string): KubeObject => ({
  metadata: { name },
  ...(phase === undefined ? {} : { status: { phase } }),
});

describe('runningWriters(): a cutover waits until no writer runs', () => {
  it('counts a controller whose Pods are not ready yet (replicas) or still ready after a scale-down (readyReplicas)', () => {
    expect(runningWriters([controller('StatefulSet', 'db-writer', { replicas: 1, readyReplicas: 0 })], [])).toEqual([
      'StatefulSet db-writer (1 Pod)',
    ]);
    expect(runningWriters([controller('Deployment', 'server', { replicas: 0, readyReplicas: 3 })], [])).toEqual([
      'Deployment server (3 Pods)',
    ]);
  });

  it('lets a controller scaled to zero, or without status, go', () => {
    expect(
      runningWriters(
        [
          controller('Deployment', 'a', { replicas: 0, readyReplicas: 0 }),
          controller('Deployment', 'b'),
          controller('Deployment', 'c', { replicas: '2' }),
        ],
        [],
      ),
    ).toEqual([]);
  });

  it('names a controller without a kind as a workload', () => {
    expect(runningWriters([controller(undefined, 'x', { replicas: 2 })], [])).toEqual(['workload x (2 Pods)']);
  });

  it('counts every Pod not yet Succeeded or Failed, Pending and Unknown ones too', () => {
    expect(
      runningWriters(
        [],
        [pod('a', 'Pending'), pod('b', 'Unknown'), pod('c', 'Succeeded'), pod('d', 'Failed'), pod('e')],
      ),
    ).toEqual(['Pod a (Pending)', 'Pod b (Unknown)', 'Pod e']);
  });
});

function fakeKube(objects: Record<string, KubeObject[]>, calls: unknown[][]): Kube {
  return {
    list: async (...args: unknown[]) => {
      calls.push(args);
      return objects[args[0] as string] ?? [];
    },
  } as unknown as Kube;
}

describe('remainingWriters(): reads the release namespace through the Kube port', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('lists Deployments, StatefulSets and Pods with the writer selector, in the release namespace, and names their kinds', async () => {
    const calls: unknown[][] = [];
    const paths: string[] = [];
    const kube = fakeKube(
      {
        Deployment: [controller(undefined, 'server', { replicas: 1 })],
        StatefulSet: [controller(undefined, 'sandbox', { readyReplicas: 2 })],
        Pod: [pod('server-1', 'Running')],
      },
      calls,
    );
    const writers = await remainingWriters('/etc/k3s.yaml', 'hephaestus', (path) => (paths.push(path), kube));
    expect(writers).toEqual(['Deployment server (1 Pod)', 'StatefulSet sandbox (2 Pods)', 'Pod server-1 (Running)']);
    expect(paths).toEqual(['/etc/k3s.yaml']);
    expect(WRITER_SELECTOR).toBe('hephaestus.role in (server,worker,sandbox)');
    expect(calls).toEqual([
      ['Deployment', 'hephaestus', { labelSelector: WRITER_SELECTOR }],
      ['StatefulSet', 'hephaestus', { labelSelector: WRITER_SELECTOR }],
      ['Pod', 'hephaestus', { labelSelector: WRITER_SELECTOR }],
    ]);
  });

  it('uses KUBECONFIG, else ~/.kube/config, when the chart settings name no kubeconfig', async () => {
    const paths: string[] = [];
    const open = (path: string) => (paths.push(path), fakeKube({}, []));
    vi.stubEnv('KUBECONFIG', '/run/kubeconfig');
    expect(await remainingWriters(undefined, 'ns', open)).toEqual([]);
    vi.stubEnv('KUBECONFIG', undefined);
    await remainingWriters(undefined, 'ns', open);
    expect(paths).toEqual(['/run/kubeconfig', join(homedir(), '.kube', 'config')]);
  });

  it('without a port given, opens the kubeconfig file itself and names it when it cannot', async () => {
    await expect(remainingWriters('/nonexistent/kubeconfig.yaml', 'ns')).rejects.toMatchObject({
      code: 'config',
      message: expect.stringMatching(/^Cannot load kubeconfig "\/nonexistent\/kubeconfig\.yaml"/),
    });
  });
});
