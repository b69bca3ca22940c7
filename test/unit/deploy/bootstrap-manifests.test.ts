// What the bootstrap layer creates against what the roots render: every Application lands in a namespace the
// bootstrap makes (Applications create none), in a project the bootstrap owns, and no root renders an AppProject.
import { describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { kustomize } from '../../support/devbox/kustomize.ts';

const TOP = resolve(import.meta.dirname, '../../..');

describe('bootstrap material and the roots', async () => {
  const bootstrap = await kustomize(join(TOP, 'gitops/manifests/bootstrap'));
  const namespaces = bootstrap.filter((d) => d.kind === 'Namespace').map((d) => d.metadata.name);
  const projects = bootstrap.filter((d) => d.kind === 'AppProject').map((d) => d.metadata.name);

  it.each(['gitops/root', 'examples/platform/gitops/root'])(
    '%s renders Applications only, each into a namespace and a project the bootstrap makes',
    async (root) => {
      const docs = await kustomize(join(TOP, root));
      expect(new Set(docs.map((d) => d.kind))).toEqual(new Set(['Application']));
      for (const app of docs) {
        const spec = app['spec'] as { project: string; destination: { namespace: string } };
        expect(namespaces, `${app.metadata.name}`).toContain(spec.destination.namespace);
        expect(projects).toContain(spec.project);
      }
    },
  );

  it('the metallo-devbox transition waits for its namespace: the bootstrap does not make it and no root installs it', async () => {
    expect(namespaces).not.toContain('metallo-devbox');
    const apps = await kustomize(join(TOP, 'gitops/root'));
    expect(apps.map((a) => (a['spec'] as { destination: { namespace: string } }).destination.namespace)).not.toContain(
      'metallo-devbox',
    );
  });

  it('the AppProjects start with no sync window: a takeover adds its own', () => {
    for (const doc of bootstrap.filter((d) => d.kind === 'AppProject'))
      expect((doc['spec'] as { syncWindows?: unknown[] }).syncWindows ?? []).toEqual([]);
    expect(projects.sort()).toEqual(['pharos', 'pharos-root']);
  });
});
