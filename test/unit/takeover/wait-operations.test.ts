import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeFromConfig } from '../../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import { leasedApplications } from '../../../scripts/lib/ownership/lease-projects.ts';
import { waitOperations } from '../../../scripts/lib/takeover/wait-operations.ts';
import type { TakeoverContext } from '../../../scripts/lib/takeover/takeover-context.ts';
import { startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';

let server: KubeApiServer;
let kube: Kube;
beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: ['argocd'] });
  kube = kubeFromConfig(server.kubeConfig());
});
afterAll(() => server.close());

const receipt = 'a'.repeat(40);
const superseded = 'b'.repeat(40);
const running = (revision: string) => ({ phase: 'Running', operation: { sync: { revision } } });

function context(lines: string[]): TakeoverContext {
  return {
    kube,
    clock: { now: () => new Date() },
    profile: { namespaces: { argocd: 'argocd' }, delivery: { syncTimeout: 5_000 } },
    pollMs: 20,
    log: (line: string) => lines.push(line),
  } as unknown as TakeoverContext;
}

async function application(name: string, revision: string) {
  await kube.create('Application', 'argocd', {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name },
    spec: { project: 'default' },
    status: { operationState: running(revision) },
  });
}

const phaseOf = async (name: string) =>
  ((await kube.get('Application', 'argocd', name))?.['status'] as { operationState: { phase: string } }).operationState
    .phase;

describe('acquire waits for operations and ends superseded ones by compare-and-swap', () => {
  it('terminates an operation for a superseded revision', async () => {
    await application('wo-old', superseded);
    const lines: string[] = [];
    const ending = waitOperations(context(lines), ['wo-old'], receipt);
    await expect.poll(() => phaseOf('wo-old')).toBe('Terminating');
    // Argo CD ends the terminated operation.
    await kube.mergePatch('Application', 'argocd', 'wo-old', { status: { operationState: { phase: 'Failed' } } });
    expect((await ending).terminated).toEqual(['wo-old']);
    expect(lines.join('\n')).toContain('terminating the operation of wo-old');
  });

  it('does not clobber an operation that changed between read and write', async () => {
    await application('wo-race', superseded);
    const stale = await leasedApplications(kube, 'argocd', ['wo-race']);
    // Between the read and the write, the superseded operation ended and a sync of the receipt's commit began.
    await kube.mergePatch('Application', 'argocd', 'wo-race', { status: { operationState: running(receipt) } });
    const waiting = waitOperations(context([]), ['wo-race'], receipt, stale);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await phaseOf('wo-race')).toBe('Running');
    await kube.mergePatch('Application', 'argocd', 'wo-race', { status: { operationState: { phase: 'Succeeded' } } });
    expect((await waiting).terminated).toEqual([]);
    expect(await phaseOf('wo-race')).toBe('Succeeded');
  });
});
