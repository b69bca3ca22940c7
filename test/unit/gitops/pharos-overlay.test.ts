import { beforeAll, describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { readFile } from 'node:fs/promises';
import { kustomize } from '../../support/devbox/kustomize.ts';
import type { Rendered } from '../../support/devbox/kustomize.ts';
import { HOOK, HOOK_DELETE_POLICY, syncGroups } from '../../../scripts/lib/argocd/sync-order.ts';
import { parseContextRegistry } from '../../../scripts/lib/pharos/context-registry.ts';
import { parseInventory, keysByOwner } from '../../../scripts/lib/pharos/secret-inventory.ts';

// gitops/manifests/pharos rendered with the real `kubectl kustomize`, read as Argo CD reads it.
const TOP = resolve(import.meta.dirname, '../../..');
type Meta = { name: string; namespace?: string; annotations?: Record<string, string> };
const meta = (d: Rendered) => d.metadata as Meta;
const ref = (d: Rendered) => `${d.kind}/${d.metadata.name}`;
const find = (docs: Rendered[], kind: string, name: string) => {
  const found = docs.find((d) => d.kind === kind && d.metadata.name === name);
  if (found === undefined) throw new Error(`no ${kind}/${name} in ${docs.map(ref).join(', ')}`);
  return found as Rendered & Record<string, any>;
};

describe('gitops/manifests/pharos/overlays/devbox', () => {
  let docs: Rendered[];
  beforeAll(async () => {
    docs = await kustomize(join(TOP, 'gitops/manifests/pharos/overlays/devbox'));
  });

  it("removes the base's Namespace and Minikube Ingress and keeps everything in the bootstrap's pharos namespace", async () => {
    const base = await kustomize(join(TOP, 'gitops/manifests/pharos/base'));
    expect(base.map(ref)).toEqual(expect.arrayContaining(['Namespace/pharos', 'Ingress/pharos-web-minikube']));
    expect(docs.filter((d) => d.kind === 'Namespace' || d.kind === 'Ingress')).toEqual([]);
    for (const d of docs) expect(meta(d).namespace, ref(d)).toBe('pharos');
  });

  it("syncs in the document's waves: -4 access and policies, -3 credentials hook, -2 PostgreSQL, -1 provision hook, 0 workloads", () => {
    const groups = syncGroups(docs as unknown as { kind: string; metadata: Meta }[]).map((g) => ({
      phase: g.phase,
      wave: g.wave,
      tasks: g.tasks.map((t) => `${t.hook ? 'hook ' : ''}${t.object.kind}/${t.object.metadata.name}`),
    }));
    expect(groups).toEqual([
      {
        phase: 'Sync',
        wave: -4,
        tasks: [
          'NetworkPolicy/credentials-egress',
          'NetworkPolicy/default-deny',
          'NetworkPolicy/dns',
          'NetworkPolicy/postgres-ingress-provision',
          'NetworkPolicy/provision-egress',
          'NetworkPolicy/traffic-agent-egress',
          'ServiceAccount/pharos-credentials',
          'Role/pharos-credentials',
          'RoleBinding/pharos-credentials',
        ],
      },
      { phase: 'Sync', wave: -3, tasks: ['hook Job/pharos-credentials'] },
      { phase: 'Sync', wave: -2, tasks: ['ServiceAccount/postgres', 'Service/postgres', 'StatefulSet/postgres'] },
      { phase: 'Sync', wave: -1, tasks: ['hook Job/pharos-database-provision'] },
      {
        phase: 'Sync',
        wave: 0,
        tasks: [
          'NetworkPolicy/database-clients-egress',
          'NetworkPolicy/postgres-ingress-clients',
          'Service/api',
          'Deployment/api',
          'Deployment/worker',
        ],
      },
    ]);
  });

  it("lets a takeover's traffic agent (a pod Telepresence labels) reach the traffic-manager API, and nothing else", () => {
    const policy = find(docs, 'NetworkPolicy', 'traffic-agent-egress');
    expect(policy['spec']).toEqual({
      podSelector: { matchLabels: { 'telepresence.io/workloadEnabled': 'true' } },
      policyTypes: ['Egress'],
      egress: [
        {
          to: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ambassador' } },
              podSelector: { matchLabels: { app: 'traffic-manager', telepresence: 'manager' } },
            },
          ],
          ports: [{ protocol: 'TCP', port: 8081 }],
        },
      ],
    });
  });

  it('both hooks are Sync hooks re-created on every sync, running the scripts as UID 70', () => {
    for (const [name, script] of [
      ['pharos-credentials', 'scripts/cluster-credentials.ts'],
      ['pharos-database-provision', 'scripts/provision-contexts.ts'],
    ] as const) {
      const job = find(docs, 'Job', name);
      expect(meta(job).annotations?.[HOOK]).toBe('Sync');
      expect(meta(job).annotations?.[HOOK_DELETE_POLICY]).toBe('BeforeHookCreation');
      const pod = job['spec']['template']['spec'];
      expect(pod.securityContext).toMatchObject({ runAsUser: 70, runAsNonRoot: true });
      expect(pod.containers[0].image).toBe('pharos/database-admin');
      expect(pod.containers[0].args.slice(0, 2)).toEqual(['node', script]);
    }
    expect(
      find(docs, 'Job', 'pharos-database-provision')['spec']['template']['spec']['containers'][0]['args'],
    ).toContain('--secrets');
  });

  it("the credentials hook's account may only get, create and patch Secrets", () => {
    expect(find(docs, 'Role', 'pharos-credentials')['rules']).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'patch'] },
    ]);
    expect(find(docs, 'RoleBinding', 'pharos-credentials')['subjects']).toEqual([
      { kind: 'ServiceAccount', name: 'pharos-credentials', namespace: 'pharos' },
    ]);
    expect(find(docs, 'Job', 'pharos-credentials')['spec']['template']['spec']['serviceAccountName']).toBe(
      'pharos-credentials',
    );
  });

  it('only PostgreSQL and the provision hook receive the administrator password', () => {
    const readers = docs.filter((d) => JSON.stringify(d['spec'] ?? {}).includes('"postgres-credentials"')).map(ref);
    expect(readers.sort()).toEqual(['Job/pharos-database-provision', 'StatefulSet/postgres']);
  });

  it('projects every registered context binding, and only those, from metallo-credentials into the provision hook', async () => {
    const registry = parseContextRegistry(
      await readFile(join(TOP, 'devops/contexts.json'), 'utf8'),
      'devops/contexts.json',
    );
    const inventory = parseInventory(
      await readFile(join(TOP, 'devops/secret-keys.json'), 'utf8'),
      'devops/secret-keys.json',
    );
    const sources = find(docs, 'Job', 'pharos-database-provision')['spec']['template']['spec']['volumes'][0][
      'projected'
    ]['sources'] as { secret: { name: string; items: { key: string }[] } }[];
    const bound = sources.find((s) => s.secret.name === registry.bindingsSecret)?.secret.items.map((i) => i.key);
    const bindings = Object.values(registry.contexts).map((c) => c.binding);
    expect(bound?.sort()).toEqual(bindings.sort());
    expect(keysByOwner(inventory).get('metallo')).toEqual(expect.arrayContaining(bindings));
    expect(keysByOwner(inventory).get('metallo')).not.toContain('POSTGRES_PASSWORD');
  });
});

describe('gitops/manifests/pharos/overlays/metallo-devbox (transition)', () => {
  it('installs the same resources in metallo-devbox, the hook account bound in that namespace', async () => {
    const devbox = await kustomize(join(TOP, 'gitops/manifests/pharos/overlays/devbox'));
    const docs = await kustomize(join(TOP, 'gitops/manifests/pharos/overlays/metallo-devbox'));
    expect(docs.map(ref).sort()).toEqual(devbox.map(ref).sort());
    for (const d of docs) expect(meta(d).namespace, ref(d)).toBe('metallo-devbox');
    expect(find(docs, 'RoleBinding', 'pharos-credentials')['subjects']).toEqual([
      { kind: 'ServiceAccount', name: 'pharos-credentials', namespace: 'metallo-devbox' },
    ]);
  });
});

describe('gitops/apps and gitops/root', () => {
  it('the root renders Applications only: no AppProject, which belongs to the bootstrap', async () => {
    const docs = await kustomize(join(TOP, 'gitops/root'));
    expect(docs.map(ref)).toEqual(['Application/pharos']);
  });

  it('pharos is installed on wave 3 into the existing pharos namespace, from the dev-box overlay', async () => {
    const [app] = await kustomize(join(TOP, 'gitops/apps/overlays/devbox'));
    expect(meta(app as Rendered).annotations?.['argocd.argoproj.io/sync-wave']).toBe('3');
    expect((app as Record<string, any>)['spec']).toMatchObject({
      project: 'pharos',
      source: { path: 'gitops/manifests/pharos/overlays/devbox' },
      destination: { namespace: 'pharos' },
    });
    expect(JSON.stringify((app as Record<string, any>)['spec']['syncPolicy'])).not.toContain('CreateNamespace');
    const [metallo] = await kustomize(join(TOP, 'gitops/apps/overlays/metallo-devbox'));
    expect((metallo as Record<string, any>)['spec']).toMatchObject({
      source: { path: 'gitops/manifests/pharos/overlays/metallo-devbox' },
      destination: { namespace: 'metallo-devbox' },
    });
    expect(meta(metallo as Rendered).name).toBe('pharos-metallo-devbox');
  });

  it('keeps the metallo-devbox transition out of the root until the bootstrap makes its namespace; the root would pass it the digests', async () => {
    const { cp, mkdtemp, rm, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { parseCatalogue } = await import('../../../scripts/lib/catalogue/parse-catalogue.ts');
    const { rootInputs } = await import('../../../scripts/lib/delivery/root-inputs.ts');
    expect((await kustomize(join(TOP, 'gitops/root'))).map(ref)).not.toContain('Application/pharos-metallo-devbox');
    // Why not yet: the Application creates no namespace (the bootstrap owns them) and nothing makes metallo-devbox,
    // so on a dev box its sync would fail ("namespaces \"metallo-devbox\" not found") on every delivery.
    const [metallo] = await kustomize(join(TOP, 'gitops/apps/overlays/metallo-devbox'));
    expect(JSON.stringify((metallo as Record<string, any>)['spec']['syncPolicy'])).not.toContain('CreateNamespace');
    const bootstrap = await kustomize(join(TOP, 'gitops/manifests/bootstrap'));
    expect(bootstrap.filter((d) => d.kind === 'Namespace').map(ref)).not.toContain('Namespace/metallo-devbox');
    // What installing it takes: one resource line in gitops/root. kustomize matches a patch's target by the original
    // name too, so the root inputs (by name "pharos") reach pharos-metallo-devbox with the same commit and digests.
    const dir = await mkdtemp(join(tmpdir(), 'metallo-root-'));
    try {
      await cp(join(TOP, 'gitops'), join(dir, 'gitops'), { recursive: true });
      const rootFile = join(dir, 'gitops/root/kustomization.yaml');
      await writeFile(rootFile, `${await readFile(rootFile, 'utf8')}  - ../apps/overlays/metallo-devbox\n`);
      const catalogue = parseCatalogue(
        await readFile(join(dir, 'gitops/manifests/images.yaml'), 'utf8'),
        'images.yaml',
      );
      const reference = `reg:5000/database-admin@sha256:${'1'.repeat(64)}`;
      const inputs = rootInputs(catalogue, 'c'.repeat(40), { 'database-admin': reference }, 'git://git.test/p.git');
      await writeFile(
        join(dir, 'kustomization.yaml'),
        JSON.stringify({ resources: ['gitops/root'], patches: inputs.patches }),
      );
      const docs = await kustomize(dir);
      for (const name of ['pharos', 'pharos-metallo-devbox'])
        expect(find(docs, 'Application', name)['spec'].source, name).toMatchObject({
          repoURL: 'git://git.test/p.git',
          targetRevision: 'c'.repeat(40),
          kustomize: { images: [`pharos/database-admin=${reference}`] },
        });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('only root Applications, apps and manifests sit at the GitOps root; the build namespace is a manifest', async () => {
    const { readdir } = await import('node:fs/promises');
    expect((await readdir(join(TOP, 'gitops'))).sort()).toEqual(['apps', 'manifests', 'root']);
    expect((await readdir(join(TOP, 'gitops/manifests'))).sort()).toContain('pharos-build');
  });
});

describe("this repository's own catalogue and pharos administration", () => {
  it('pass every check rule: bindings, migrations in the database-admin inputs, policies before hooks', async () => {
    const { openSource, loadCatalogue } = await import('../../../scripts/lib/fingerprint/index.ts');
    const { checkPlatform } = await import('../../../scripts/lib/check/index.ts');
    const source = await openSource(TOP, undefined);
    const catalogue = await loadCatalogue(source);
    expect(catalogue.images.map((i) => i.name)).toEqual(['database-admin']);
    expect(await checkPlatform(source, catalogue)).toEqual([]);
  });
});
