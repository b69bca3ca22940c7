// RBAC as the real authorizer evaluates it, for namespaced Roles and RoleBindings (the only RBAC kinds served here).
// Ported from kubernetes pkg/apis/rbac/v1/evaluation_helpers.go (VerbMatches, APIGroupMatches, ResourceMatches,
// ResourceNameMatches) and pkg/registry/rbac/validation/rule.go (appliesToUser); the 403 text follows
// apiserver's responsewriters.forbiddenMessage. Pure.
import type { KubeObject } from './object-store.ts';

export interface Identity {
  readonly username: string;
  readonly groups: readonly string[];
}

export interface RequestAttributes {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource: string | undefined;
  /** '' for a cluster-scoped request. */
  readonly namespace: string;
  /** '' for a collection. */
  readonly name: string;
}

interface Rule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs?: readonly string[];
  readonly resourceNames?: readonly string[];
}

interface Subject {
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
}

/** The HTTP verb and path's request attributes, as the apiserver's RequestInfoFactory names them. */
export function verbOf(method: string, hasName: boolean, watch: boolean): string {
  if (method === 'GET' || method === 'HEAD') return hasName ? 'get' : watch ? 'watch' : 'list';
  if (method === 'POST') return 'create';
  if (method === 'PUT') return 'update';
  if (method === 'PATCH') return 'patch';
  if (method === 'DELETE') return hasName ? 'delete' : 'deletecollection';
  return method.toLowerCase();
}

export function ruleAllows(rule: Rule, a: RequestAttributes): boolean {
  const verbs = rule.verbs ?? [];
  if (!verbs.includes('*') && !verbs.includes(a.verb)) return false;
  const groups = rule.apiGroups ?? [];
  if (!groups.includes('*') && !groups.includes(a.group)) return false;
  const combined = a.subresource === undefined ? a.resource : `${a.resource}/${a.subresource}`;
  const resources = rule.resources ?? [];
  const resourceMatches = resources.some(
    (r) => r === '*' || r === combined || (a.subresource !== undefined && r === `*/${a.subresource}`),
  );
  if (!resourceMatches) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

export function subjectApplies(subject: Subject, user: Identity, bindingNamespace: string): boolean {
  if (subject.kind === 'User') return subject.name === user.username;
  if (subject.kind === 'Group') return subject.name !== undefined && user.groups.includes(subject.name);
  if (subject.kind === 'ServiceAccount') {
    // An empty subject namespace means the binding's own, as appliesToUser reads it.
    const namespace =
      subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : bindingNamespace;
    return user.username === `system:serviceaccount:${namespace}:${subject.name}`;
  }
  return false;
}

/** Whether the Roles bound in the request's namespace allow it; `roles` and `bindings` are that namespace's objects. */
export function authorize(
  user: Identity,
  a: RequestAttributes,
  roles: readonly KubeObject[],
  bindings: readonly KubeObject[],
): boolean {
  if (user.groups.includes('system:masters')) return true;
  if (a.namespace === '') return false; // ClusterRoles are not served: nothing grants a cluster-scoped request
  for (const binding of bindings) {
    const ref = binding['roleRef'] as { kind?: string; name?: string } | undefined;
    if (ref?.kind !== 'Role') continue;
    const subjects = (binding['subjects'] ?? []) as Subject[];
    if (!subjects.some((s) => subjectApplies(s, user, a.namespace))) continue;
    const role = roles.find((r) => r.metadata['name'] === ref.name);
    if (((role?.['rules'] ?? []) as Rule[]).some((rule) => ruleAllows(rule, a))) return true;
  }
  return false;
}

export function forbiddenMessage(user: Identity, a: RequestAttributes): string {
  const resource = a.subresource === undefined ? a.resource : `${a.resource}/${a.subresource}`;
  const qualified = a.group === '' ? a.resource : `${a.resource}.${a.group}`;
  const scope = a.namespace === '' ? 'at the cluster scope' : `in the namespace "${a.namespace}"`;
  const reason = `User "${user.username}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}`;
  return a.name === '' ? `${qualified} is forbidden: ${reason}` : `${qualified} "${a.name}" is forbidden: ${reason}`;
}
