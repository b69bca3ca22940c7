import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeFromConfig } from '../../../scripts/lib/ports/kube.ts';
import { startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';

let server: KubeApiServer;

beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: ['team-a', 'argocd'] });
});
afterAll(async () => server.close());

describe('Kube port requests: the paths, verbs and content types the API server serves', () => {
  it('core, group and custom resources, subresources, a label selector and a container, names path-encoded', async () => {
    const kube = kubeFromConfig(server.kubeConfig());
    server.resetRequests();
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a.b' }, data: {} };
    await kube.create('ConfigMap', 'team-a', cm);
    await kube.get('ConfigMap', 'team-a', 'a.b');
    expect(await kube.get('ConfigMap', 'team-a', 'no/such')).toBeUndefined();
    await kube.list('ConfigMap', 'team-a', { labelSelector: 'app in (web, api),tier!=db' });
    await kube.mergePatch('ConfigMap', 'team-a', 'a.b', { data: { k: 'v' } });
    await kube.jsonPatch('ConfigMap', 'team-a', 'a.b', [{ op: 'test', path: '/data/k', value: 'v' }]);
    await kube.delete('ConfigMap', 'team-a', 'a.b', { propagationPolicy: 'Background' });
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    };
    const created = await kube.create('Job', 'team-a', job);
    await kube.replaceStatus('Job', 'team-a', { ...created, status: { active: 1 } });
    await kube.mergePatchStatus('Application', 'argocd', 'missing', { status: {} }).catch(() => undefined);
    await kube.get('AppProject', 'argocd', 'default');
    await kube.podLogs('team-a', 'p', { container: 'main' }).catch(() => undefined);
    await kube.whoAmI();
    expect(server.requests).toEqual([
      { method: 'POST', path: '/api/v1/namespaces/team-a/configmaps', contentType: 'application/json' },
      { method: 'GET', path: '/api/v1/namespaces/team-a/configmaps/a.b', contentType: undefined },
      { method: 'GET', path: '/api/v1/namespaces/team-a/configmaps/no%2Fsuch', contentType: undefined },
      {
        method: 'GET',
        path: '/api/v1/namespaces/team-a/configmaps?labelSelector=app+in+%28web%2C+api%29%2Ctier%21%3Ddb',
        contentType: undefined,
      },
      {
        method: 'PATCH',
        path: '/api/v1/namespaces/team-a/configmaps/a.b',
        contentType: 'application/merge-patch+json',
      },
      {
        method: 'PATCH',
        path: '/api/v1/namespaces/team-a/configmaps/a.b',
        contentType: 'application/json-patch+json',
      },
      { method: 'DELETE', path: '/api/v1/namespaces/team-a/configmaps/a.b', contentType: 'application/json' },
      { method: 'POST', path: '/apis/batch/v1/namespaces/team-a/jobs', contentType: 'application/json' },
      { method: 'PUT', path: '/apis/batch/v1/namespaces/team-a/jobs/j/status', contentType: 'application/json' },
      {
        method: 'PATCH',
        path: '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/missing/status',
        contentType: 'application/merge-patch+json',
      },
      {
        method: 'GET',
        path: '/apis/argoproj.io/v1alpha1/namespaces/argocd/appprojects/default',
        contentType: undefined,
      },
      { method: 'GET', path: '/api/v1/namespaces/team-a/pods/p/log?container=main', contentType: undefined },
      { method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', contentType: 'application/json' },
    ]);
    expect(kube.requestCount()).toBe(server.requests.length);
  });
});
