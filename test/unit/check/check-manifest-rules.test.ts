import { describe, expect, it } from 'vitest';
import { brief, check, cleanPlatform } from './fixture.ts';

describe('check: manifest rules', () => {
  it('uncatalogued-image: an owned image in a CronJob template, with its line', async () => {
    const files = cleanPlatform();
    files['gitops/manifests/shop/report.yaml'] = [
      'apiVersion: batch/v1',
      'kind: CronJob',
      'metadata: {name: report}',
      'spec:',
      '  schedule: "0 3 * * *"',
      '  jobTemplate:',
      '    spec:',
      '      template:',
      '        spec:',
      '          containers:',
      '            - name: report',
      '              image: acme/report:2',
      '',
    ].join('\n');
    const findings = await check(files);
    expect(brief(findings)).toEqual(['uncatalogued-image acme/report gitops/manifests/shop/report.yaml:12']);
    expect(findings[0]?.severity).toBe('error');
  });

  it('uncatalogued-image: init and ephemeral containers, kustomization images and Application kustomize.images', async () => {
    const files = cleanPlatform();
    files['gitops/manifests/shop/pod.yaml'] =
      'kind: Pod\nspec:\n  initContainers:\n    - image: acme/init\n  ephemeralContainers:\n    - image: acme/debug:1\n';
    files['gitops/manifests/shop/kustomization.yaml'] =
      'resources: [deploy.yaml]\nimages:\n  - name: acme/api\n    newName: acme/api-next\n';
    files['gitops/apps/shop.yaml'] += '    kustomize:\n      images: ["acme/web=acme/web-canary:3"]\n';
    files['gitops/apps/shop.yaml'] = files['gitops/apps/shop.yaml']!.replace(
      '  source: {path: gitops/manifests/shop}\n',
      '  source:\n    path: gitops/manifests/shop\n',
    );
    expect(brief(await check(files))).toEqual([
      'uncatalogued-image acme/api-next gitops/manifests/shop/kustomization.yaml:4',
      'uncatalogued-image acme/debug gitops/manifests/shop/pod.yaml:6',
      'uncatalogued-image acme/init gitops/manifests/shop/pod.yaml:4',
      'uncatalogued-image acme/web-canary gitops/apps/shop.yaml:9',
    ]);
  });

  it("uncatalogued-image: images without an owned prefix are not the catalogue's business", async () => {
    const files = cleanPlatform();
    files['gitops/manifests/shop/extra.yaml'] =
      'kind: Pod\nspec:\n  containers:\n    - image: redis:7\n    - image: ghcr.io/acme/api:1\n';
    expect(await check(files)).toEqual([]);
  });

  it('unknown-application: a catalogue application with no Argo CD Application, once per image', async () => {
    const files = cleanPlatform();
    files['gitops/apps/shop.yaml'] = files['gitops/apps/shop.yaml']!.replace('name: shop', 'name: store');
    expect(brief(await check(files))).toEqual([
      'unknown-application api gitops/manifests/images.yaml:6',
      'unknown-application web gitops/manifests/images.yaml:12',
    ]);
  });

  it('unused-image: a catalogue image no manifest names is a warning at its image key', async () => {
    const files = cleanPlatform();
    files['gitops/manifests/shop/deploy.yaml'] = files['gitops/manifests/shop/deploy.yaml']!.replace(
      /        - name: web\n.*\n/,
      '',
    );
    const findings = await check(files);
    expect(brief(findings)).toEqual(['unused-image web gitops/manifests/images.yaml:11']);
    expect(findings[0]?.severity).toBe('warning');
  });

  it('unreadable-manifest: YAML that cannot be parsed is reported, not skipped silently', async () => {
    const files = { ...cleanPlatform(), 'gitops/manifests/shop/broken.yaml': 'kind: Pod\nspec: [unclosed\n' };
    expect(brief(await check(files))).toEqual(['unreadable-manifest - gitops/manifests/shop/broken.yaml:3']);
  });

  it('skips Helm chart templates (Go templates, not YAML) instead of reporting them unreadable', async () => {
    const files = {
      ...cleanPlatform(),
      'gitops/manifests/chart/Chart.yaml': 'apiVersion: v2\nname: chart\nversion: 0.1.0\n',
      'gitops/manifests/chart/templates/deploy.yaml': 'spec:\n  {{- with .Values.x }}\n  image: {{ .Values.image }}\n',
    };
    expect(await check(files)).toEqual([]);
  });

  it('follows YAML aliases to the image they name', async () => {
    const files = cleanPlatform();
    files['gitops/manifests/shop/deploy.yaml'] =
      'x-images:\n  web: &web acme/web:2\nkind: Pod\nspec:\n  containers:\n    - image: acme/api\n    - image: *web\n';
    expect(await check(files)).toEqual([]);
  });
});
