import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { kubeFromConfig } from '../../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import { startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';
import { appendWindow, readWindows, removeWindows, replaceWindow } from '../../../scripts/lib/takeover/index.ts';
import { isOurWindow, leaseWindow } from '../../../scripts/lib/ownership/index.ts';

let server: KubeApiServer;
let kube: Kube;
const record = { applications: ['pharos'], acquired: '2026-10-14T12:00:10Z', expires: '2026-10-15T00:00:10Z' };
const ours = leaseWindow(record);
const mine = (w: unknown) => isOurWindow(w, record);
// Key order and optional fields as someone else wrote them: they must come back byte for byte.
const foreign = [
  { schedule: '0 22 * * *', kind: 'deny', duration: '1h30m', namespaces: ['batch'], description: 'nightly' },
  { kind: 'allow', schedule: '0 6 * * 1-5', duration: '14h', applications: ['legacy-*'], manualSync: true },
];

beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: ['argocd'] });
  kube = kubeFromConfig(server.kubeConfig());
});
afterAll(() => server.close());
beforeEach(async () => {
  await kube.delete('AppProject', 'argocd', 'p');
  await kube.create('AppProject', 'argocd', {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AppProject',
    metadata: { name: 'p' },
    spec: { syncWindows: foreign },
  });
});

const text = async () =>
  JSON.stringify(
    (((await kube.get('AppProject', 'argocd', 'p'))?.['spec'] as { syncWindows: unknown[] }).syncWindows ?? []).slice(
      0,
      2,
    ),
  );

describe('AppProject sync windows', () => {
  it('appendWindow() adds our window once and leaves the others byte for byte', async () => {
    const read = await readWindows(kube, 'argocd', 'p');
    const after = await appendWindow(kube, 'argocd', read, ours, mine);
    expect(after.windows).toEqual([...foreign, ours]);
    await appendWindow(kube, 'argocd', await readWindows(kube, 'argocd', 'p'), ours, mine);
    expect((await readWindows(kube, 'argocd', 'p')).windows).toHaveLength(3);
    expect(await text()).toBe(JSON.stringify(foreign));
  });

  it('appendWindow() re-reads when another window was added meanwhile and keeps it', async () => {
    const stale = await readWindows(kube, 'argocd', 'p');
    const extra = { kind: 'deny', schedule: '0 0 1 1 *', duration: '1h', clusters: ['*'] };
    await kube.jsonPatch('AppProject', 'argocd', 'p', [{ op: 'add', path: '/spec/syncWindows/-', value: extra }]);
    const after = await appendWindow(kube, 'argocd', stale, ours, mine);
    expect(after.windows).toEqual([...foreign, extra, ours]);
  });

  it('a renewal replaces only our window in one request', async () => {
    const read = await appendWindow(kube, 'argocd', await readWindows(kube, 'argocd', 'p'), ours, mine);
    const before = kube.requestCount();
    const longer = leaseWindow({ ...record, expires: '2026-10-15T00:05:10Z' });
    const after = await replaceWindow(kube, 'argocd', read, mine, longer);
    expect(kube.requestCount() - before).toBe(1);
    expect(after?.windows).toEqual([...foreign, longer]);
    expect(await text()).toBe(JSON.stringify(foreign));
  });

  it('removeWindows() removes only the picked window, pinned by a test of its value', async () => {
    await appendWindow(kube, 'argocd', await readWindows(kube, 'argocd', 'p'), ours, mine);
    const { removed, after } = await removeWindows(kube, 'argocd', await readWindows(kube, 'argocd', 'p'), mine);
    expect(removed).toBe(1);
    expect(after.windows).toEqual(foreign);
    expect(await text()).toBe(JSON.stringify(foreign));
  });
});
