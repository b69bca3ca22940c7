import type { Kube } from '../ports/kube.ts';
import type { KubeObject } from '../ports/kube-kinds.ts';

export interface LeasedApplication {
  readonly name: string;
  readonly project: string;
  readonly namespace: string | undefined;
  readonly object: KubeObject;
}

/** The leased Applications as listed (one request): their AppProject and destination namespace. */
export async function leasedApplications(
  kube: Kube,
  namespace: string,
  names: readonly string[],
): Promise<LeasedApplication[]> {
  const wanted = new Set(names);
  return (await kube.list('Application', namespace))
    .filter((app) => wanted.has(app.metadata.name))
    .map((object) => {
      const spec = (object['spec'] ?? {}) as { project?: unknown; destination?: { namespace?: unknown } };
      return {
        name: object.metadata.name,
        project: typeof spec.project === 'string' && spec.project !== '' ? spec.project : 'default',
        namespace: typeof spec.destination?.namespace === 'string' ? spec.destination.namespace : undefined,
        object,
      };
    });
}

/** The destination namespaces of the leased Applications, in their order (an Application without one has none). */
export function namespacesOf(apps: readonly LeasedApplication[]): string[] {
  return apps.flatMap((a) => (a.namespace === undefined ? [] : [a.namespace]));
}

export function projectsOf(apps: readonly LeasedApplication[], fallback: string): string[] {
  return [...new Set([fallback, ...apps.map((a) => a.project)])].sort();
}
