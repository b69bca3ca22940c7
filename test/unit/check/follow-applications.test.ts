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
    expect(findings[0]?.message).toBe('container image "acme/cart:1.0" has an owned prefix but no catalogue entry builds "acme/cart": delivery would never update it');
  });

  it('reads a plain folder as Argo CD does: its YAML files, the whole tree only with directory.recurse', async () => {
    const files = cleanPlatform();
    files['gitops/apps/plain.yaml'] = app('plain', '    path: ./deploy/plain/\n');
    files['deploy/plain/a.yaml'] = pod('acme/plain:1');
    files['deploy/plain/nested/b.yaml'] = pod('acme/nested:1');
    expect(brief(await check(files))).toEqual(['uncatalogued-image acme/plain deploy/plain/a.yaml:5']);
    files['gitops/apps/plain.yaml'] += '    directory:\n      recurse: true\n';
    expect(brief(await check(files))).toEqual(['uncatalogued-image acme/nested deploy/plain/nested/b.yaml:5', 'uncatalogued-image acme/plain deploy/plain/a.yaml:5']);
  });

  it('an image only a followed folder names is used: no unused-image warning', async () => {
    const files = cleanPlatform();
    files['gitops/manifests/shop/deploy.yaml'] = files['gitops/manifests/shop/deploy.yaml']!.replace(/        - name: web\n.*\n/, '');
    files['gitops/apps/web.yaml'] = app('web', '    path: web/k8s\n');
    files['web/k8s/deploy.yaml'] = pod('acme/web:2');
    expect(await check(files)).toEqual([]);
  });

  it('does not follow remote resources, paths leaving the repository or folders that do not exist', async () => {
    const files = cleanPlatform();
    files['gitops/apps/odd.yaml'] = app('odd', '    path: ../elsewhere\n');
    files['gitops/apps/gone.yaml'] = app('gone', '    path: not/here\n');
    files['gitops/apps/remote.yaml'] = app('remote', '    path: deploy/remote\n');
    files['deploy/remote/kustomization.yaml'] = 'resources:\n  - https://github.com/acme/x//deploy?ref=v1\n  - ../../../outside\n';
    expect(await check(files)).toEqual([]);
  });

  it('an app of apps pointing at the Applications folder reads each file once', async () => {
    const files = cleanPlatform();
    files['gitops/apps/root.yaml'] = app('root', '    path: gitops/apps\n');
    files['gitops/apps/shop.yaml'] += '    kustomize:\n      images: ["acme/new:1"]\n';
    files['gitops/apps/shop.yaml'] = files['gitops/apps/shop.yaml']!.replace('  source: {path: gitops/manifests/shop}\n', '  source:\n    path: gitops/manifests/shop\n');
    expect(brief(await check(files))).toEqual(['uncatalogued-image acme/new gitops/apps/shop.yaml:9']);
  });
});
