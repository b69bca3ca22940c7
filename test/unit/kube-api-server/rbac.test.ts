// The test API server's RBAC against the documented rules of Kubernetes RBAC (kubernetes.io "Using RBAC
// Authorization" and pkg/apis/rbac/v1/evaluation_helpers.go): additive rules, explicit subresources, resourceNames.
import { describe, expect, it } from 'vitest';
import { authorize, forbiddenMessage, ruleAllows, subjectApplies, verbOf } from '../../support/kube-api-server/rbac.ts';
import type { RequestAttributes } from '../../support/kube-api-server/rbac.ts';

const sa = {
  username: 'system:serviceaccount:pharos:pharos-credentials',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:pharos', 'system:authenticated'],
};
const req = (over: Partial<RequestAttributes>): RequestAttributes => ({
  verb: 'get',
  group: '',
  resource: 'secrets',
  subresource: undefined,
  namespace: 'pharos',
  name: 'x',
  ...over,
});
const role = (rules: unknown[]) => ({ metadata: { name: 'r', namespace: 'pharos' }, rules });
const binding = (subjects: unknown[], kind = 'Role') => ({
  metadata: { name: 'b', namespace: 'pharos' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: 'r' },
  subjects,
});

describe('RBAC of the test API server', () => {
  it('names verbs as the apiserver does: get/list/watch, create, update, patch, delete/deletecollection', () => {
    expect([
      verbOf('GET', true, false),
      verbOf('GET', false, false),
      verbOf('GET', false, true),
      verbOf('POST', false, false),
      verbOf('PUT', true, false),
      verbOf('PATCH', true, false),
      verbOf('DELETE', true, false),
      verbOf('DELETE', false, false),
    ]).toEqual(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection']);
  });

  it('a rule matches on verb, API group and resource, each listed or "*"', () => {
    const rule = { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'patch'] };
    expect(ruleAllows(rule, req({}))).toBe(true);
    expect(ruleAllows(rule, req({ verb: 'delete' }))).toBe(false);
    expect(ruleAllows(rule, req({ resource: 'configmaps' }))).toBe(false);
    expect(ruleAllows(rule, req({ group: 'apps' }))).toBe(false);
    expect(
      ruleAllows(
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
        req({ group: 'batch', resource: 'jobs', verb: 'deletecollection' }),
      ),
    ).toBe(true);
  });

  it('a subresource is allowed only when named ("pods/log") or wildcarded ("*/log"), never implied by its resource', () => {
    const pods = req({ resource: 'pods', subresource: 'log' });
    expect(ruleAllows({ apiGroups: [''], resources: ['pods'], verbs: ['get'] }, pods)).toBe(false);
    expect(ruleAllows({ apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }, pods)).toBe(true);
    expect(ruleAllows({ apiGroups: [''], resources: ['*/log'], verbs: ['get'] }, pods)).toBe(true);
    expect(ruleAllows({ apiGroups: [''], resources: ['*/log'], verbs: ['get'] }, req({ resource: 'pods' }))).toBe(
      false,
    );
  });

  it('resourceNames restrict a rule to those names, so it grants no list and no create (no name is known then)', () => {
    const rule = {
      apiGroups: [''],
      resources: ['configmaps'],
      resourceNames: ['my-config'],
      verbs: ['get', 'list', 'create'],
    };
    expect(ruleAllows(rule, req({ resource: 'configmaps', name: 'my-config' }))).toBe(true);
    expect(ruleAllows(rule, req({ resource: 'configmaps', name: 'other' }))).toBe(false);
    expect(ruleAllows(rule, req({ resource: 'configmaps', name: '', verb: 'list' }))).toBe(false);
    expect(ruleAllows(rule, req({ resource: 'configmaps', name: '', verb: 'create' }))).toBe(false);
  });

  it("subjects: a User by name, a Group by membership, a ServiceAccount by namespace (the binding's when empty) and name", () => {
    expect(subjectApplies({ kind: 'User', name: 'jane' }, { username: 'jane', groups: [] }, 'pharos')).toBe(true);
    expect(subjectApplies({ kind: 'Group', name: 'system:serviceaccounts:pharos' }, sa, 'pharos')).toBe(true);
    expect(
      subjectApplies({ kind: 'ServiceAccount', name: 'pharos-credentials', namespace: 'pharos' }, sa, 'other'),
    ).toBe(true);
    expect(subjectApplies({ kind: 'ServiceAccount', name: 'pharos-credentials' }, sa, 'pharos')).toBe(true);
    expect(subjectApplies({ kind: 'ServiceAccount', name: 'pharos-credentials' }, sa, 'metallo-devbox')).toBe(false);
    expect(subjectApplies({ kind: 'User', name: sa.username.toUpperCase() }, sa, 'pharos')).toBe(false);
  });

  it('authorize(): only rules of Roles bound to the caller in the namespace count; system:masters is always allowed', () => {
    const roles = [role([{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }])];
    const bound = [binding([{ kind: 'ServiceAccount', name: 'pharos-credentials', namespace: 'pharos' }])];
    expect(authorize(sa, req({}), roles, bound)).toBe(true);
    expect(authorize(sa, req({ verb: 'patch' }), roles, bound)).toBe(false);
    expect(
      authorize(sa, req({}), roles, [binding([{ kind: 'ServiceAccount', name: 'other', namespace: 'pharos' }])]),
    ).toBe(false);
    expect(
      authorize(sa, req({}), roles, [
        binding([{ kind: 'ServiceAccount', name: 'pharos-credentials', namespace: 'pharos' }], 'ClusterRole'),
      ]),
    ).toBe(false);
    expect(authorize(sa, req({ namespace: '', resource: 'namespaces' }), roles, bound)).toBe(false);
    expect(authorize({ username: 'system:admin', groups: ['system:masters'] }, req({ verb: 'delete' }), [], [])).toBe(
      true,
    );
  });

  it('the 403 message reads as the real API server writes it', () => {
    expect(forbiddenMessage(sa, req({ verb: 'delete', name: 'api-credentials' }))).toBe(
      'secrets "api-credentials" is forbidden: User "system:serviceaccount:pharos:pharos-credentials" cannot delete resource "secrets" in API group "" in the namespace "pharos"',
    );
    expect(forbiddenMessage(sa, req({ verb: 'list', name: '', group: 'batch', resource: 'jobs' }))).toBe(
      'jobs.batch is forbidden: User "system:serviceaccount:pharos:pharos-credentials" cannot list resource "jobs" in API group "batch" in the namespace "pharos"',
    );
    expect(forbiddenMessage(sa, req({ verb: 'get', name: 'p', resource: 'pods', subresource: 'log' }))).toBe(
      'pods "p" is forbidden: User "system:serviceaccount:pharos:pharos-credentials" cannot get resource "pods/log" in API group "" in the namespace "pharos"',
    );
  });
});
