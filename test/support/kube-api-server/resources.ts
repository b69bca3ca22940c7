// The resource types the test API server serves (Namespace and namespaced kinds), as the real API server names them.
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly shortNames?: readonly string[];
  /** Real API server: spec and status are written through different endpoints. Argo CD's CRDs have none. */
  readonly statusSubresource: boolean;
  readonly logSubresource?: boolean;
  /** Built-in kinds accept strategic merge patch; custom resources answer 415. */
  readonly builtIn: boolean;
  /** ConfigMaps and Secrets have no metadata.generation. */
  readonly generation: boolean;
  /** Namespace is the one cluster-scoped kind served; everything else lives in a namespace that must exist. */
  readonly clusterScoped?: boolean;
  /** batch/v1 Jobs still default to orphaning their Pods when a DELETE names no propagation policy. */
  readonly defaultPropagation?: 'Orphan';
  /** Deployments and StatefulSets serve `…/scale` (autoscaling/v1 Scale). */
  readonly scaleSubresource?: boolean;
}

export const RESOURCE_TYPES: readonly ResourceType[] = [
  {
    group: '',
    version: 'v1',
    plural: 'namespaces',
    kind: 'Namespace',
    shortNames: ['ns'],
    statusSubresource: true,
    builtIn: true,
    generation: false,
    clusterScoped: true,
  },
  {
    group: '',
    version: 'v1',
    plural: 'configmaps',
    kind: 'ConfigMap',
    shortNames: ['cm'],
    statusSubresource: false,
    builtIn: true,
    generation: false,
  },
  {
    group: '',
    version: 'v1',
    plural: 'secrets',
    kind: 'Secret',
    statusSubresource: false,
    builtIn: true,
    generation: false,
  },
  {
    group: '',
    version: 'v1',
    plural: 'services',
    kind: 'Service',
    shortNames: ['svc'],
    statusSubresource: true,
    builtIn: true,
    generation: false,
  },
  {
    group: '',
    version: 'v1',
    plural: 'serviceaccounts',
    kind: 'ServiceAccount',
    shortNames: ['sa'],
    statusSubresource: false,
    builtIn: true,
    generation: false,
  },
  {
    group: '',
    version: 'v1',
    plural: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    shortNames: ['pvc'],
    statusSubresource: true,
    builtIn: true,
    generation: false,
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    plural: 'networkpolicies',
    kind: 'NetworkPolicy',
    shortNames: ['netpol'],
    statusSubresource: false,
    builtIn: true,
    generation: true,
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'roles',
    kind: 'Role',
    statusSubresource: false,
    builtIn: true,
    generation: false,
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'rolebindings',
    kind: 'RoleBinding',
    statusSubresource: false,
    builtIn: true,
    generation: false,
  },
  {
    group: '',
    version: 'v1',
    plural: 'pods',
    kind: 'Pod',
    shortNames: ['po'],
    statusSubresource: true,
    logSubresource: true,
    builtIn: true,
    generation: true,
  },
  {
    group: 'batch',
    version: 'v1',
    plural: 'jobs',
    kind: 'Job',
    statusSubresource: true,
    builtIn: true,
    generation: true,
    defaultPropagation: 'Orphan',
  },
  {
    group: 'apps',
    version: 'v1',
    plural: 'deployments',
    kind: 'Deployment',
    shortNames: ['deploy'],
    statusSubresource: true,
    builtIn: true,
    generation: true,
    scaleSubresource: true,
  },
  {
    group: 'apps',
    version: 'v1',
    plural: 'statefulsets',
    kind: 'StatefulSet',
    shortNames: ['sts'],
    statusSubresource: true,
    builtIn: true,
    generation: true,
    scaleSubresource: true,
  },
  {
    group: 'argoproj.io',
    version: 'v1alpha1',
    plural: 'applications',
    kind: 'Application',
    shortNames: ['app', 'apps'],
    statusSubresource: false,
    builtIn: false,
    generation: true,
  },
  {
    group: 'argoproj.io',
    version: 'v1alpha1',
    plural: 'appprojects',
    kind: 'AppProject',
    shortNames: ['appproj', 'appprojs'],
    statusSubresource: false,
    builtIn: false,
    generation: true,
  },
];

export function apiVersionOf(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

export function findResourceType(group: string, version: string, plural: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((t) => t.group === group && t.version === version && t.plural === plural);
}

/** The APIResourceList discovery answers for one group version (what KubernetesObjectApi reads). */
export function discoveryList(group: string, version: string): Record<string, unknown> | undefined {
  const types = RESOURCE_TYPES.filter((t) => t.group === group && t.version === version);
  if (types.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const t of types) {
    const verbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
    const namespaced = t.clusterScoped !== true;
    resources.push({
      name: t.plural,
      singularName: t.kind.toLowerCase(),
      namespaced,
      kind: t.kind,
      verbs,
      ...(t.shortNames ? { shortNames: t.shortNames } : {}),
    });
    if (t.statusSubresource)
      resources.push({
        name: `${t.plural}/status`,
        singularName: '',
        namespaced,
        kind: t.kind,
        verbs: ['get', 'patch', 'update'],
      });
    if (t.logSubresource)
      resources.push({ name: `${t.plural}/log`, singularName: '', namespaced, kind: t.kind, verbs: ['get'] });
    if (t.scaleSubresource)
      resources.push({
        name: `${t.plural}/scale`,
        singularName: '',
        namespaced,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      });
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources,
  };
}

export function apiGroupList(): Record<string, unknown> {
  const groups = [...new Set(RESOURCE_TYPES.filter((t) => t.group !== '').map((t) => `${t.group}/${t.version}`))];
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: groups.map((gv) => {
      const [name, version] = gv.split('/') as [string, string];
      const v = { groupVersion: gv, version };
      return { name, versions: [v], preferredVersion: v };
    }),
  };
}
