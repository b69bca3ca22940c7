import { describe, expect, it } from 'vitest';
import { resourceHealth, worse } from '../../support/argocd-simulator/resource-health.ts';
import { inSync } from '../../support/argocd-simulator/resource-diff.ts';

const deployment = (spec: Record<string, unknown>, status: Record<string, unknown>, generation = 2) => ({
  metadata: { generation },
  spec,
  status,
});

describe('simulated Argo CD health checks', () => {
  it('a Deployment is Progressing until the new generation is observed and its replicas are updated and available', () => {
    expect(
      resourceHealth(
        'Deployment',
        deployment({ replicas: 2 }, { observedGeneration: 1, updatedReplicas: 2, availableReplicas: 2 }),
      ).status,
    ).toBe('Progressing');
    expect(
      resourceHealth(
        'Deployment',
        deployment({ replicas: 2 }, { observedGeneration: 2, updatedReplicas: 1, availableReplicas: 1 }),
      ).message,
    ).toBe('Waiting for rollout to finish: 1 out of 2 new replicas have been updated...');
    expect(
      resourceHealth(
        'Deployment',
        deployment({ replicas: 2 }, { observedGeneration: 2, updatedReplicas: 2, availableReplicas: 1 }),
      ).status,
    ).toBe('Progressing');
    expect(
      resourceHealth(
        'Deployment',
        deployment({ replicas: 2 }, { observedGeneration: 2, updatedReplicas: 2, availableReplicas: 2 }),
      ).status,
    ).toBe('Healthy');
    expect(resourceHealth('Deployment', deployment({ replicas: 0 }, { observedGeneration: 2 })).status).toBe('Healthy');
    expect(resourceHealth('Deployment', deployment({ paused: true }, {})).status).toBe('Suspended');
  });

  it('Jobs: Complete is Healthy, Failed is Degraded, suspended is Suspended, running is Progressing; absent is Missing', () => {
    const job = (status: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({ spec, status });
    expect(resourceHealth('Job', job({ conditions: [{ type: 'Complete', status: 'True' }] })).status).toBe('Healthy');
    expect(
      resourceHealth('Job', job({ conditions: [{ type: 'Failed', status: 'True', message: 'BackoffLimitExceeded' }] })),
    ).toEqual({ status: 'Degraded', message: 'BackoffLimitExceeded' });
    expect(resourceHealth('Job', job({}, { suspend: true })).status).toBe('Suspended');
    expect(resourceHealth('Job', job({ active: 1 })).status).toBe('Progressing');
    expect(resourceHealth('Job', undefined).status).toBe('Missing');
  });

  it('the worst health wins: Degraded over Missing over Progressing over Suspended over Healthy', () => {
    expect(
      ['Healthy', 'Suspended', 'Progressing', 'Missing', 'Degraded'].reduce(
        (a, b) => worse(a as never, b as never),
        'Healthy',
      ),
    ).toBe('Degraded');
    expect(worse('Missing', 'Progressing')).toBe('Missing');
  });
});

describe('simulated Argo CD diff', () => {
  const desired = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', labels: { a: '1' } },
    data: { k: 'v' },
    list: [1, 2],
  };
  it('ignores what the server adds and status, but not a changed value, label or list length', () => {
    const live = {
      ...desired,
      metadata: { name: 'c', uid: 'u', resourceVersion: '9', labels: { a: '1', extra: 'x' } },
      status: { any: 1 },
      data: { k: 'v', added: 'by-someone' },
    };
    expect(inSync(desired, live)).toBe(true);
    expect(inSync(desired, { ...live, data: { k: 'changed' } })).toBe(false);
    expect(inSync(desired, { ...live, metadata: { name: 'c', labels: { a: '2' } } })).toBe(false);
    expect(inSync(desired, { ...live, list: [1, 2, 3] })).toBe(false);
  });
});
