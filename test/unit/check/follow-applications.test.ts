import { describe, expect, it } from 'vitest';
import { brief, check, cleanPlatform } from './fixture.ts';

const app = (name: string, source: string) =>
  `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: ${name}\nspec:\n  source:\n${source}`;
const pod = (image: string) => `kind: Pod\nspec:\n  containers:\n    - name: c\n      image: ${image}\n`;

describe('check follows what each Argo CD Application deploys', () => {
  it('finds an uncatalogued image in a kustomize base that an Application outside gitops/manifests deploys', async () => {
    const files = cleanPlatform();
    files['gitops/apps/cart.yaml'] = app('cart', '    path: deploy/k8s/overlays/prod\n');
    files['deploy/k8s/overlays/prod/kustomization.yaml'] = 'resources:\n  - ../../base\n  - extra.yaml\n';
    files['deploy/k8s/overlays/prod/extra.yaml'] = pod('nginx:1');
    files['deploy/k8s/base/kustomization.yaml'] = 'resources: [deploy.yaml]\n';
    files['deploy/k8s/base/deploy.yaml'] = pod('acme/cart:1.0');
    files['deploy/k8s/base/unlisted.yaml'] = pod('acme/ghost:1');
    const findings = await check(files);
    expect(brief(findings)).toEqual(['uncatalogued-image acme/cart deploy/k8s/base/deploy.yaml:5']);
    expect(findings[0]?.message).toBe(
      'container image "acme/cart:1.0" has an owned prefix but no catalogue entry builds "acme/cart": delivery would never update it',
    );
  });

  it('reads a plain folder as Argo CD does: its YAML files, the whole tree only with directory.recurse', async () => {
    const files = cleanPlatform();
    files['gitops/apps/plain.yaml'] = app('plain', '    path: ./deploy/plain/\n');
    files['deploy/plain/a.yaml'] = pod('acme/plain:1');
    files['deploy/plain/nested/b.yaml'] = pod('acme/nested:1');
    expect(brief(await check(files))).toEqual(['uncatalogued-image acme/plain deploy/plain/a.yaml:5']);
    files['gitops/apps/plain.yaml'] += '    directory:\n      recurse: true\n';
    expect(brief(await check(files))).toEqual([
      'uncatalogued-image acme/nested deploy/plain/nested/b.yaml:5',
      'uncatalogued-image acme/plain deploy/plain/a.yaml:5',
    ]);
  });

  it('an image only a followed folder names is used: no unused-image warning', async () => {
    const files = cleanPlatform();
    files['gitops/manifests/shop/deploy.yaml'] = files['gitops/manifests/shop/deploy.yaml']!.replace(
      /        - name: web\n.*\n/,
      '',
    );
    files['gitops/apps/web.yaml'] = app('web', '    path: web/k8s\n');
    files['web/k8s/deploy.yaml'] = pod('acme/web:2');
    expect(await check(files)).toEqual([]);
  });

  it('does not follow remote resources, paths leaving the repository or folders that do not exist', async () => {
    const files = cleanPlatform();
    files['gitops/apps/odd.yaml'] = app('odd', '    path: ../elsewhere\n');
    files['gitops/apps/gone.yaml'] = app('gone', '    path: not/here\n');
    files['gitops/apps/remote.yaml'] = app('remote', '    path: deploy/remote\n');
    files['deploy/remote/kustomization.yaml'] =
      'resources:\n  - https://github.com/acme/x//deploy?ref=v1\n  - ../../../outside\n';
    expect(await check(files)).toEqual([]);
  });

  it('an app of apps pointing at the Applications folder reads each file once', async () => {
    const files = cleanPlatform();
    files['gitops/apps/root.yaml'] = app('root', '    path: gitops/apps\n');
    files['gitops/apps/shop.yaml'] += '    kustomize:\n      images: ["acme/new:1"]\n';
    files['gitops/apps/shop.yaml'] = files['gitops/apps/shop.yaml']!.replace(
      '  source: {path: gitops/manifests/shop}\n',
      '  source:\n    path: gitops/manifests/shop\n',
    );
    expect(brief(await check(files))).toEqual(['uncatalogued-image acme/new gitops/apps/shop.yaml:9']);
  });
});

describe('check renders a kustomization that reading cannot predict', () => {
  const files = () => {
    const f = cleanPlatform();
    f['gitops/apps/cart.yaml'] = app('cart', '    path: deploy/cart\n');
    f['deploy/cart/kustomization.yaml'] = 'resources: [deploy.yaml]\npatches:\n  - path: sidecar.yaml\n';
    f['deploy/cart/deploy.yaml'] = pod('acme/api:1');
    f['deploy/cart/sidecar.yaml'] =
      'kind: Pod\nspec:\n  containers:\n    - name: sidecar\n      image: acme/sidecar:2\n';
    return f;
  };

  it('an owned image only the rendered output names is reported at the kustomization, from the real render', async () => {
    const { memorySource } = await import('./memory-source.ts');
    const { parseCatalogue } = await import('../../../scripts/lib/catalogue/index.ts');
    const { checkPlatform } = await import('../../../scripts/lib/check/index.ts');
    const f = files();
    const rendered: string[] = [];
    const render = async (folder: string) => {
      rendered.push(folder);
      return `${pod('acme/api:1')}---\n${pod('acme/sidecar:2')}`;
    };
    const findings = await checkPlatform(
      memorySource(f),
      parseCatalogue(f['gitops/manifests/images.yaml'] ?? '', 'gitops/manifests/images.yaml'),
      { render },
    );
    expect(rendered).toEqual(['deploy/cart']);
    expect(findings.map((x) => `${x.rule} ${x.image} ${x.file}:${x.line} ${x.message}`)).toEqual([
      'uncatalogued-image acme/sidecar deploy/cart/kustomization.yaml:1 kubectl kustomize output image "acme/sidecar:2" has an owned prefix but no catalogue entry builds "acme/sidecar": delivery would never update it',
    ]);
  });

  it('a render that fails is a warning naming the folder; the files read are still checked', async () => {
    const { memorySource } = await import('./memory-source.ts');
    const { parseCatalogue } = await import('../../../scripts/lib/catalogue/index.ts');
    const { checkPlatform } = await import('../../../scripts/lib/check/index.ts');
    const f = files();
    f['deploy/cart/deploy.yaml'] = pod('acme/ghost:1');
    const render = async () => {
      throw new Error('error: no matches for Id Pod.v1.[noGrp]/sidecar');
    };
    const findings = await checkPlatform(
      memorySource(f),
      parseCatalogue(f['gitops/manifests/images.yaml'] ?? '', 'gitops/manifests/images.yaml'),
      { render },
    );
    expect(findings.map((x) => `${x.rule} ${x.file}:${x.line} ${x.message}`)).toEqual([
      'unreadable-manifest deploy/cart/kustomization.yaml:1 kubectl kustomize deploy/cart failed: error: no matches for Id Pod.v1.[noGrp]/sidecar; images its patches or remote resources introduce are not checked',
      'uncatalogued-image deploy/cart/deploy.yaml:5 container image "acme/ghost:1" has an owned prefix but no catalogue entry builds "acme/ghost": delivery would never update it',
    ]);
  });

  it('where kubectl is not installed the kustomization is read only, and the step log says so: no finding', async () => {
    const { memorySource } = await import('./memory-source.ts');
    const { parseCatalogue } = await import('../../../scripts/lib/catalogue/index.ts');
    const { checkPlatform } = await import('../../../scripts/lib/check/index.ts');
    const f = files();
    const log: string[] = [];
    const findings = await checkPlatform(
      memorySource(f),
      parseCatalogue(f['gitops/manifests/images.yaml'] ?? '', 'gitops/manifests/images.yaml'),
      { render: async () => undefined, log: (l) => log.push(l) },
    );
    expect(findings).toEqual([]);
    expect(log.find((l) => l.includes('step=render'))).toMatch(
      /skipped=deploy\/cart reason="kubectl is not installed: these kustomizations are read, not rendered"/,
    );
  });

  it('a kustomization with only resources and images is read, not rendered', async () => {
    const { memorySource } = await import('./memory-source.ts');
    const { parseCatalogue } = await import('../../../scripts/lib/catalogue/index.ts');
    const { checkPlatform } = await import('../../../scripts/lib/check/index.ts');
    const f = files();
    f['deploy/cart/kustomization.yaml'] = 'resources: [deploy.yaml]\nimages:\n  - name: acme/api\n    newTag: "2"\n';
    const rendered: string[] = [];
    await checkPlatform(
      memorySource(f),
      parseCatalogue(f['gitops/manifests/images.yaml'] ?? '', 'gitops/manifests/images.yaml'),
      { render: async (d) => (rendered.push(d), '') },
    );
    expect(rendered).toEqual([]);
  });
});
