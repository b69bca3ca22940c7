import { describe, expect, it } from 'vitest';
import { applicationState } from '../../../scripts/lib/argocd/application-state.ts';
import { needsSync } from '../../../scripts/lib/argocd/sync-applications.ts';

const C = 'c'.repeat(40);
const P = 'p'.repeat(40);

/** An Argo CD Application as the controller reports it. */
function app(options: {
  automated?: boolean;
  sync?: string;
  revision?: string;
  health?: string;
  last?: { phase: string; revision: string };
}) {
  return applicationState({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'pharos' },
    spec: options.automated === false ? {} : { syncPolicy: { automated: { selfHeal: true } } },
    status: {
      sync: { status: options.sync ?? 'Synced', revision: options.revision ?? C },
      health: { status: options.health ?? 'Healthy' },
      ...(options.last
        ? {
            operationState: {
              phase: options.last.phase,
              message: 'm',
              startedAt: '2026-11-30T12:00:00Z',
              operation: { sync: { revision: options.last.revision } },
              syncResult: { revision: options.last.revision },
            },
          }
        : {}),
    },
  });
}

describe('needsSync() decides which Applications a delivery asks Argo CD to sync', () => {
  it('reads the last finished operation: phase, synced revision and message', () => {
    expect(app({ last: { phase: 'Failed', revision: C } }).lastOperation).toEqual({
      phase: 'Failed',
      revision: C,
      message: 'm',
      startedAt: '2026-11-30T12:00:00Z',
    });
    expect(app({}).lastOperation).toBeUndefined();
  });

  it('syncs a child whose image was built once the root rendered it at the commit, though it is automated and Synced', () => {
    expect(needsSync(app({ last: { phase: 'Succeeded', revision: P } }), false, true, C)).toBe(true);
  });

  it('does not resync a child the root has not rendered at the commit yet', () => {
    expect(needsSync(app({ revision: P, last: { phase: 'Succeeded', revision: P } }), false, true, C)).toBe(false);
  });

  it('does not resync a child whose sync at the commit already succeeded (its hooks ran the new digest)', () => {
    expect(needsSync(app({ last: { phase: 'Succeeded', revision: C } }), false, true, C)).toBe(false);
  });

  it('leaves an automated child whose images did not change to Argo CD', () => {
    expect(needsSync(app({ sync: 'OutOfSync', last: { phase: 'Succeeded', revision: P } }), false, false, C)).toBe(
      false,
    );
  });

  it('retries a child whose last sync at the commit failed, since automated sync does not retry that revision', () => {
    expect(needsSync(app({ last: { phase: 'Failed', revision: C } }), false, false, C)).toBe(true);
    expect(needsSync(app({ last: { phase: 'Error', revision: C } }), false, true, C)).toBe(true);
    expect(needsSync(app({ last: { phase: 'Failed', revision: P } }), false, false, C)).toBe(false);
  });

  it('syncs a manual child and the root until they are settled at the commit', () => {
    expect(needsSync(app({ automated: false, sync: 'OutOfSync' }), false, false, C)).toBe(true);
    expect(needsSync(app({ automated: false }), false, false, C)).toBe(false);
    expect(needsSync(app({ revision: P }), true, false, C)).toBe(true);
    expect(needsSync(app({}), true, false, C)).toBe(false);
  });
});
