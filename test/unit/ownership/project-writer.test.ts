import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kubeFromConfig } from '../../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import type { KubeObject } from '../../../scripts/lib/ports/kube-kinds.ts';
import { PROJECT_WRITER, checkProjectWriter, decideWriter } from '../../../scripts/lib/ownership/project-writer.ts';
import { startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';

const TOP = resolve(import.meta.dirname, '../../..');
let server: KubeApiServer;
let admin: Kube;
let fence: KubeObject;

beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: ['argocd'] });
  admin = kubeFromConfig(server.kubeConfig());
  server.addUser('controller-token', 'system:serviceaccount:argocd:argocd-application-controller', [
    'system:serviceaccounts',
    'system:serviceaccounts:argocd',
    'system:authenticated',
  ]);
  // Argo CD's controller reads everything through its ClusterRole; a Role in argocd stands in for it here.
  server.grant('argocd', 'system:serviceaccount:argocd:argocd-application-controller', [
    { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] },
  ]);
  // The fence's parameters exactly as the bootstrap applies them.
  const docs = parseAllDocuments(
    await readFile(join(TOP, 'gitops/manifests/bootstrap/project-writer.yaml'), 'utf8'),
  ).map((d) => d.toJS() as KubeObject);
  fence = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === PROJECT_WRITER) as KubeObject;
});
afterAll(() => server.close());
beforeEach(async () => {
  await admin.delete('ConfigMap', 'argocd', PROJECT_WRITER);
});

describe('takeover writes sync windows only as the fence administrator', () => {
  it('decideWriter() admits the administrator and refuses anyone else, naming both', () => {
    expect(decideWriter('system:admin', 'system:admin')).toEqual({ kind: 'administrator', username: 'system:admin' });
    expect(decideWriter('system:admin', 'alice')).toEqual({
      kind: 'refuse',
      username: 'alice',
      administrator: 'system:admin',
    });
  });

  it("checkProjectWriter() passes the bootstrap administrator (k3s's admin kubeconfig) under the installed fence", async () => {
    await admin.create('ConfigMap', 'argocd', fence);
    expect(await checkProjectWriter(admin, 'argocd', 'dev1')).toEqual({
      kind: 'administrator',
      username: 'system:admin',
    });
  });

  it("checkProjectWriter() refuses Argo CD's service account with exit 2, naming who it is and who may write", async () => {
    await admin.create('ConfigMap', 'argocd', fence);
    const controller = kubeFromConfig(server.kubeConfig('argocd', 'controller-token'));
    const refusal = checkProjectWriter(controller, 'argocd', 'dev1');
    await expect(refusal).rejects.toMatchObject({ code: 'project-writer', exitCode: 2 });
    await expect(refusal).rejects.toThrow(
      /target "dev1": this kubeconfig authenticates as "system:serviceaccount:argocd:argocd-application-controller", but the project-writer fence \(ConfigMap "argocd\/pharos-project-writer"\) lets only "system:admin"/,
    );
  });

  it('checkProjectWriter() says the windows are unguarded when no fence is installed, without asking who it is', async () => {
    const before = admin.requestCount();
    expect(await checkProjectWriter(admin, 'argocd', 'dev1')).toEqual({ kind: 'no-fence' });
    expect(admin.requestCount() - before).toBe(1);
  });

  it('checkProjectWriter() names the field and value of a fence ConfigMap without an administrator', async () => {
    await admin.create('ConfigMap', 'argocd', { ...fence, data: { administrator: '', argocdNamespace: 'argocd' } });
    await expect(checkProjectWriter(admin, 'argocd', 'dev1')).rejects.toThrow(
      'ConfigMap "argocd/pharos-project-writer": field data.administrator must name the bootstrap administrator, got ""',
    );
  });
});
