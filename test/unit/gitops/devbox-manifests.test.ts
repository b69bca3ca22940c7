import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { mkdtemp, readFile, writeFile, cp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { kustomize } from '../../support/devbox/kustomize.ts';
import type { Rendered } from '../../support/devbox/kustomize.ts';
import { jobTemplateSchema } from '../../../scripts/lib/delivery/build-job.ts';
import { rootInputs } from '../../../scripts/lib/delivery/root-inputs.ts';
import { parseCatalogue } from '../../../scripts/lib/catalogue/parse-catalogue.ts';

const TOP = resolve(import.meta.dirname, '../../..');
const byKind = (docs: Rendered[], kind: string, name: string) => {
  const found = docs.find((d) => d.kind === kind && d.metadata.name === name);
  if (found === undefined)
    throw new Error(`no ${kind} ${name} in ${docs.map((d) => `${d.kind}/${d.metadata.name}`).join(', ')}`);
  return found;
};

const pvc = z.looseObject({
  spec: z.looseObject({
    storageClassName: z.literal('ceph-block'),
    accessModes: z.array(z.string()).nonempty(),
    resources: z.looseObject({ requests: z.looseObject({ storage: z.string() }) }),
  }),
});
const registryDeployment = z.looseObject({
  spec: z.looseObject({
    strategy: z.looseObject({ type: z.literal('Recreate') }),
    template: z.looseObject({
      spec: z.looseObject({
        containers: z.tuple([
          z.looseObject({
            ports: z.array(z.looseObject({ containerPort: z.literal(5000) })),
            resources: z.looseObject({
              requests: z.record(z.string(), z.string()),
              limits: z.record(z.string(), z.string()),
            }),
          }),
        ]),
        volumes: z.array(
          z.looseObject({ persistentVolumeClaim: z.looseObject({ claimName: z.literal('registry-data') }) }),
        ),
      }),
    }),
  }),
});
const application = z.looseObject({
  metadata: z.looseObject({ namespace: z.literal('argocd') }),
  spec: z.looseObject({ project: z.literal('pharos'), source: z.looseObject({ path: z.string() }) }),
});

describe('gitops/manifests/pharos-build', () => {
  let docs: Rendered[];
  beforeAll(async () => {
    docs = await kustomize(join(TOP, 'gitops/manifests/pharos-build'));
  });

  it('builds with kubectl kustomize into the pharos-build namespace', () => {
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual([
      'ConfigMap/buildkitd-config',
      'Deployment/registry',
      'Namespace/pharos-build',
      'NetworkPolicy/build-egress',
      'NetworkPolicy/default-deny',
      'NetworkPolicy/registry-ingress',
      'PersistentVolumeClaim/registry-data',
      'Service/registry',
    ]);
    for (const doc of docs.filter((d) => d.kind !== 'Namespace')) expect(doc.metadata.namespace).toBe('pharos-build');
  });

  it('keeps registry blobs on a Ceph block volume, the registry on its claim', () => {
    pvc.parse(byKind(docs, 'PersistentVolumeClaim', 'registry-data'));
    registryDeployment.parse(byKind(docs, 'Deployment', 'registry'));
    const service = byKind(docs, 'Service', 'registry') as any;
    const deployment = byKind(docs, 'Deployment', 'registry') as any;
    expect(service.spec.ports[0].port).toBe(5000);
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
  });

  it('denies all traffic by default and lets build pods reach only DNS, Git and the registry', () => {
    expect((byKind(docs, 'NetworkPolicy', 'default-deny') as any).spec).toEqual({
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
    });
    const egress = (byKind(docs, 'NetworkPolicy', 'build-egress') as any).spec.egress as {
      ports: { port: number }[];
    }[];
    expect(egress.flatMap((rule) => rule.ports.map((p) => p.port)).sort((a, b) => a - b)).toEqual([
      53, 53, 80, 5000, 9418,
    ]);
  });

  it('ships a BuildKit Job template with requests, limits, no retries and per-Job BuildKit state (no shared ReadWriteOnce claim)', async () => {
    const template = jobTemplateSchema.parse(
      parseYaml(await readFile(join(TOP, 'gitops/manifests/pharos-build/buildkit-job.yaml'), 'utf8')),
    );
    const container = template.spec.template.spec.containers[0] as any;
    expect(container.resources.requests).toEqual({ cpu: '1', memory: '2Gi' });
    expect(container.resources.limits).toEqual({ cpu: '2', memory: '4Gi' });
    expect(template.metadata.labels?.['pharos.dev/build']).toBe('true');
    expect((template.spec.template.spec as any).volumes[0]).toEqual({ name: 'cache', emptyDir: {} });
  });
});

describe('root app-of-apps', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'root-render-'));
    await cp(join(TOP, 'examples/platform/gitops'), join(dir, 'gitops'), { recursive: true });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("renders Applications only, every one in the pharos project: the AppProjects are the bootstrap's", async () => {
    const docs = await kustomize(join(dir, 'gitops/root'));
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual([
      'Application/pharos',
      'Application/themelio-compat',
    ]);
    for (const app of docs.filter((d) => d.kind === 'Application')) application.parse(app);
  });

  it("passes each digest to its child's kustomize.images through the root Application's kustomize patches", async () => {
    const catalogue = parseCatalogue(await readFile(join(dir, 'gitops/manifests/images.yaml'), 'utf8'), 'images.yaml');
    const digest = (n: string) => `sha256:${n.repeat(64)}`;
    const images = {
      api: `reg:5000/api@${digest('1')}`,
      worker: `reg:5000/worker@${digest('2')}`,
      migrate: `reg:5000/migrate@${digest('3')}`,
      'compat-web': `reg:5000/compat-web@${digest('4')}`,
      'compat-admin': `reg:5000/compat-admin@${digest('5')}`,
    };
    const commit = 'c'.repeat(40);
    const inputs = rootInputs(catalogue, commit, images, 'git://git.test/platform.git');
    // What Argo CD does with spec.source.kustomize.patches: add them to the rendered kustomization.
    await writeFile(
      join(dir, 'kustomization.yaml'),
      JSON.stringify({ resources: ['gitops/root'], patches: inputs.patches }),
    );
    const docs = await kustomize(dir);
    const compat = byKind(docs, 'Application', 'themelio-compat') as any;
    expect(compat.spec.source).toMatchObject({
      repoURL: 'git://git.test/platform.git',
      targetRevision: commit,
      path: 'gitops/manifests/themelio-compat',
    });
    expect(compat.spec.source.kustomize.images).toEqual([
      `pharos/compat-admin=${images['compat-admin']}`,
      `pharos/compat-web=${images['compat-web']}`,
    ]);
    // What Argo CD does with a child's kustomize.images (`kustomize edit set image old=new@digest`), then renders it.
    const child = join(dir, 'gitops/manifests/themelio-compat');
    const setImages = compat.spec.source.kustomize.images.map((entry: string) => {
      const [name, ref] = entry.split('=') as [string, string];
      const [newName, d] = ref.split('@') as [string, string];
      return { name, newName, digest: d };
    });
    const own = parseYaml(await readFile(join(child, 'kustomization.yaml'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(child, 'kustomization.yaml'), JSON.stringify({ ...own, images: setImages }));
    const workloads = await kustomize(child);
    const containerImages = workloads.map((w: any) => w.spec.template.spec.containers[0].image).sort();
    expect(containerImages).toEqual([images['compat-admin'], images['compat-web']]);
  });

  it('keeps takeover windows: the root ignores AppProject syncWindows', async () => {
    const root = parseYaml(await readFile(join(TOP, 'examples/platform/gitops/root/application.yaml'), 'utf8')) as any;
    expect(root.spec.source.path).toBe('gitops/root');
    expect(root.spec.ignoreDifferences).toContainEqual({
      group: 'argoproj.io',
      kind: 'AppProject',
      jsonPointers: ['/spec/syncWindows'],
    });
    expect(root.spec.syncPolicy.syncOptions).toContain('RespectIgnoreDifferences=true');
  });
});
