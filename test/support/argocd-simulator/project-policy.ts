// AppProject permissions Argo CD enforces before comparing or syncing: source repos, destinations, resource kinds.
import { globMatch } from '../../../scripts/lib/argocd/index.ts';
import type { AppProject, Application } from '../../../scripts/lib/argocd/index.ts';
import type { Manifest } from './manifest.ts';
import { groupOf } from './manifest.ts';

/** The first violation, worded as Argo CD words it, or undefined. */
export function sourceProblem(project: AppProject, app: Application): string | undefined {
  const repo = app.spec.source?.repoURL ?? '';
  if (!(project.spec.sourceRepos ?? []).some((p) => globMatch(p, repo))) {
    return `application repo ${repo} is not permitted in project '${project.metadata.name}'`;
  }
  const dst = app.spec.destination;
  const allowed = (project.spec.destinations ?? []).some((d) => {
    const cluster =
      (d.server !== undefined && dst.server !== undefined && globMatch(d.server, dst.server)) ||
      (d.name !== undefined && dst.name !== undefined && globMatch(d.name, dst.name));
    return cluster && globMatch(d.namespace ?? '', dst.namespace ?? '');
  });
  if (!allowed) {
    return `application destination server '${dst.server ?? dst.name ?? ''}' and namespace '${dst.namespace ?? ''}' do not match any of the allowed destinations in project '${project.metadata.name}'`;
  }
  return undefined;
}

export function resourceProblem(project: AppProject, m: Manifest): string | undefined {
  const group = groupOf(m);
  const listed = (list: readonly { group: string; kind: string }[] | undefined) =>
    (list ?? []).some((e) => globMatch(e.group, group) && globMatch(e.kind, m.kind));
  const white = project.spec.namespaceResourceWhitelist;
  const permitted =
    (white === undefined || white.length === 0 || listed(white)) && !listed(project.spec.namespaceResourceBlacklist);
  return permitted ? undefined : `resource ${group}:${m.kind} is not permitted in project ${project.metadata.name}`;
}
