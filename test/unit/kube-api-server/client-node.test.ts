import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiException, AppsV1Api, CoreV1Api, KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';

let server: KubeApiServer;
beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: ['argocd', 'apps'] });
});
afterAll(async () => server.close());

describe('test API server through the unwrapped @kubernetes/client-node', () => {
  it('serves discovery so KubernetesObjectApi reads and merge-patches custom resources', async () => {
    const client = KubernetesObjectApi.makeApiClient(server.kubeConfig('argocd'));
    const app = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'root', namespace: 'argocd' }, spec: { project: 'default' } };
    await client.create(app);
    const patched = await client.patch(
      { ...app, spec: { project: 'platform' } } as KubernetesObject,
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    );
    expect((patched as { spec: { project: string } }).spec.project).toBe('platform');
    const read = await client.read({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'root', namespace: 'argocd' } });
    expect(read.metadata?.generation).toBe(2);
  });

  it('answers strategic merge patch on built-ins and 415 on custom resources, like the real server', async () => {
    const client = KubernetesObjectApi.makeApiClient(server.kubeConfig('argocd'));
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'smp', namespace: 'argocd' }, data: { a: '1' } } as KubernetesObject);
    const cm = await client.patch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'smp', namespace: 'argocd' }, data: { b: '2' } } as KubernetesObject);
    expect((cm as { data: Record<string, string> }).data).toEqual({ a: '1', b: '2' });
    const project = { apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { name: 'p', namespace: 'argocd' }, spec: {} };
    await client.create(project as KubernetesObject);
    const error = await client.patch(project as KubernetesObject).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiException);
    expect((error as ApiException<unknown>).code).toBe(415);
  });

  it('returns Status bodies for 404 and 409 AlreadyExists, and typed models for built-ins', async () => {
    const core = server.kubeConfig().makeApiClient(CoreV1Api);
    const apps = server.kubeConfig().makeApiClient(AppsV1Api);
    const missing = await core.readNamespacedConfigMap({ name: 'x', namespace: 'none' }).catch((e: unknown) => e);
    expect((missing as ApiException<string>).code).toBe(404);
    expect(JSON.parse((missing as ApiException<string>).body)).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'configmaps "x" not found' });
    const dep = { metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web' }] } } } };
    const created = await apps.createNamespacedDeployment({ namespace: 'apps', body: dep });
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    const dup = await apps.createNamespacedDeployment({ namespace: 'apps', body: dep }).catch((e: unknown) => e);
    expect((dup as ApiException<string>).code).toBe(409);
    expect(JSON.parse((dup as ApiException<string>).body)).toMatchObject({ reason: 'AlreadyExists' });
    const list = await apps.listNamespacedDeployment({ namespace: 'apps' });
    expect(list.items.map((d) => d.metadata?.name)).toEqual(['web']);
  });
});
