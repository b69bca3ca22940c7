import { describe, expect, it } from 'vitest';
import { serviceAliases } from '../../../scripts/lib/takeover/resolve-workloads.ts';

const service = (name: string, selector?: Record<string, string>) => ({
  metadata: { name },
  spec: selector === undefined ? {} : { selector },
});

describe('serviceAliases()', () => {
  it('gives a workload the cluster DNS names of every Service whose selector its pod labels satisfy', () => {
    const aliases = serviceAliases(
      [
        service('api', { app: 'api' }),
        service('api-internal', { app: 'api', tier: 'web' }),
        service('worker', { app: 'worker' }),
      ],
      'pharos',
      { app: 'api', tier: 'web' },
    );
    expect(aliases).toEqual([
      'api',
      'api.pharos',
      'api.pharos.svc',
      'api.pharos.svc.cluster.local',
      'api-internal',
      'api-internal.pharos',
      'api-internal.pharos.svc',
      'api-internal.pharos.svc.cluster.local',
    ]);
  });
  it('ignores Services without a selector (their endpoints are managed by hand) and objects that are not Services', () => {
    expect(serviceAliases([service('external'), { kind: 'nonsense' }, null], 'pharos', { app: 'api' })).toEqual([]);
  });
});
