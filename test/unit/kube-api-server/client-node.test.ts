import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
} from '@kubernetes/client-node';
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
    const app = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'root', namespace: 'argocd' },
      spec: { project: 'default' },
    };
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
    const read = await client.read({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'root', namespace: 'argocd' },
    });
    expect(read.metadata?.generation).toBe(2);
  });

  it('answers strategic merge patch on built-ins and 415 on custom resources, like the real server', async () => {
    const client = KubernetesObjectApi.makeApiClient(server.kubeConfig('argocd'));
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'smp', namespace: 'argocd' },
      data: { a: '1' },
    } as KubernetesObject);
    const cm = await client.patch({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'smp', namespace: 'argocd' },
      data: { b: '2' },
    } as KubernetesObject);
    expect((cm as { data: Record<string, string> }).data).toEqual({ a: '1', b: '2' });
    const project = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AppProject',
      metadata: { name: 'p', namespace: 'argocd' },
      spec: {},
    };
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
    expect(JSON.parse((missing as ApiException<string>).body)).toMatchObject({
      kind: 'Status',
      reason: 'NotFound',
      message: 'configmaps "x" not found',
    });
    const dep = {
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web' }] } },
      },
    };
    const created = await apps.createNamespacedDeployment({ namespace: 'apps', body: dep });
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    const dup = await apps.createNamespacedDeployment({ namespace: 'apps', body: dep }).catch((e: unknown) => e);
    expect((dup as ApiException<string>).code).toBe(409);
    expect(JSON.parse((dup as ApiException<string>).body)).toMatchObject({ reason: 'AlreadyExists' });
    const list = await apps.listNamespacedDeployment({ namespace: 'apps' });
    expect(list.items.map((d) => d.metadata?.name)).toEqual(['web']);
  });

  it('refuses a PUT of a custom resource without resourceVersion (422), as for CRDs; a built-in kind accepts it', async () => {
    const custom = server.kubeConfig().makeApiClient(CustomObjectsApi);
    const core = server.kubeConfig().makeApiClient(CoreV1Api);
    const ref = { group: 'argoproj.io', version: 'v1alpha1', namespace: 'argocd', plural: 'appprojects' };
    await custom.createNamespacedCustomObject({
      ...ref,
      body: { apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { name: 'put' }, spec: {} },
    });
    const body = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AppProject',
      metadata: { name: 'put' },
      spec: { description: 'x' },
    };
    const refused = await custom.replaceNamespacedCustomObject({ ...ref, name: 'put', body }).catch((e: unknown) => e);
    expect((refused as ApiException<string>).code).toBe(422);
    // kubernetes/apiserver store.go Update: NewInvalid on the resource (appprojects.argoproj.io), not the kind.
    expect(JSON.parse((refused as ApiException<string>).body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'appprojects.argoproj.io "put" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
      reason: 'Invalid',
      details: {
        name: 'put',
        group: 'argoproj.io',
        kind: 'appprojects',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 0x0: must be specified for an update',
            field: 'metadata.resourceVersion',
          },
        ],
      },
      code: 422,
    });
    const live = (await custom.getNamespacedCustomObject({ ...ref, name: 'put' })) as {
      metadata: { resourceVersion: string };
    };
    await custom.replaceNamespacedCustomObject({
      ...ref,
      name: 'put',
      body: { ...body, metadata: { name: 'put', resourceVersion: live.metadata.resourceVersion } },
    });
    await core.createNamespacedConfigMap({
      namespace: 'argocd',
      body: { metadata: { name: 'put' }, data: { a: '1' } },
    });
    const replaced = await core.replaceNamespacedConfigMap({
      namespace: 'argocd',
      name: 'put',
      body: { metadata: { name: 'put' }, data: { a: '2' } },
    });
    expect(replaced.data).toEqual({ a: '2' });
  });

  it('serves the scale subresource of Deployments (autoscaling/v1 Scale)', async () => {
    const apps = server.kubeConfig().makeApiClient(AppsV1Api);
    const dep = {
      metadata: { name: 'scaled' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'scaled' } },
        template: { metadata: { labels: { app: 'scaled' } }, spec: { containers: [{ name: 'c', image: 'c' }] } },
      },
    };
    await apps.createNamespacedDeployment({ namespace: 'apps', body: dep });
    const scale = await apps.readNamespacedDeploymentScale({ namespace: 'apps', name: 'scaled' });
    expect(scale).toMatchObject({ kind: 'Scale', spec: { replicas: 2 }, status: { selector: 'app=scaled' } });
    await apps.replaceNamespacedDeploymentScale({
      namespace: 'apps',
      name: 'scaled',
      body: { metadata: { name: 'scaled' }, spec: { replicas: 5 } },
    });
    expect((await apps.readNamespacedDeployment({ namespace: 'apps', name: 'scaled' })).spec?.replicas).toBe(5);
  });
});
