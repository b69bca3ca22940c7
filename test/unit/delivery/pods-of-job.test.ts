import { describe, expect, it } from 'vitest';
import { podsOfJob } from '../../../scripts/lib/delivery/run-build-job.ts';
import type { KubeObject } from '../../../scripts/lib/ports/kube-kinds.ts';

const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'build-web-0123', uid: 'new-uid' } } as KubeObject;
const pod = (name: string, owner: string, extra: Record<string, unknown> = {}) =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      labels: { 'job-name': 'build-web-0123' },
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'build-web-0123', uid: owner, controller: true }],
      ...extra,
    },
  }) as KubeObject;

describe('podsOfJob(): the Pods of this very Job among those with its job-name label', () => {
  it('skips a Pod of an earlier Job of the same name (another uid), even when it sorts first', () => {
    const pods = [pod('build-web-0123-aaaaa', 'old-uid'), pod('build-web-0123-zzzzz', 'new-uid')];
    expect(podsOfJob(pods, job).map((p) => p.metadata.name)).toEqual(['build-web-0123-zzzzz']);
  });

  it('skips a terminating Pod and an orphaned one (no owner reference left), and puts the newest first', () => {
    const pods = [
      pod('a', 'new-uid', { deletionTimestamp: '2026-11-30T12:00:30Z', creationTimestamp: '2026-11-30T12:00:00Z' }),
      { ...pod('b', 'new-uid'), metadata: { name: 'b', labels: {} } } as KubeObject,
      pod('c', 'new-uid', { creationTimestamp: '2026-11-30T12:00:01Z' }),
      pod('d', 'new-uid', { creationTimestamp: '2026-11-30T12:00:05Z' }),
    ];
    expect(podsOfJob(pods, job).map((p) => p.metadata.name)).toEqual(['d', 'c']);
  });
});
