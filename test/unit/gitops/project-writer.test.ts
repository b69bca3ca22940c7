import { beforeAll, describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { run } from '@bufbuild/cel';
import { kustomize } from '../../support/devbox/kustomize.ts';
import type { Rendered } from '../../support/devbox/kustomize.ts';

// The project-writer fence (gitops/manifests/bootstrap/project-writer.yaml), its CEL evaluated by a real CEL
// implementation (@bufbuild/cel) the way the API server evaluates a ValidatingAdmissionPolicy: variables first, then
// each validation in order; the first that is false denies with its message.
const TOP = resolve(import.meta.dirname, '../../..');

interface Policy {
  spec: {
    variables: { name: string; expression: string }[];
    validations: { expression: string; message: string }[];
    matchConstraints: unknown;
    failurePolicy: string;
  };
}

/** CEL reads JSON objects as maps. */
function cel(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cel);
  if (value !== null && typeof value === 'object') return new Map(Object.entries(value).map(([k, v]) => [k, cel(v)]));
  return value;
}

let policy: Policy;
let params: Record<string, unknown>;
let binding: Record<string, any>;

beforeAll(async () => {
  const docs = await kustomize(join(TOP, 'gitops/manifests/bootstrap'));
  policy = docs.find((d) => d.kind === 'ValidatingAdmissionPolicy') as unknown as Policy;
  params = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'pharos-project-writer') as Rendered;
  binding = docs.find((d) => d.kind === 'ValidatingAdmissionPolicyBinding') as Record<string, any>;
});

const WINDOW = { kind: 'deny', schedule: '0 12 * * *', duration: '12h', applications: ['pharos'], manualSync: false };
const project = (windows: unknown[], description = 'pharos') => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'AppProject',
  metadata: { name: 'pharos', namespace: 'argocd' },
  spec: { description, syncWindows: windows },
});

/** undefined when admitted, else the message of the first failed validation. */
function admit(
  username: string,
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  object: unknown,
  oldObject: unknown,
): string | undefined {
  const bindings: Record<string, unknown> = {
    request: cel({ operation, userInfo: { username, groups: [] } }),
    object: cel(object),
    oldObject: cel(oldObject),
    params: cel(params),
  };
  const variables = new Map<string, unknown>();
  for (const v of policy.spec.variables) variables.set(v.name, run(v.expression, { ...bindings, variables } as never));
  for (const validation of policy.spec.validations) {
    const result = run(validation.expression, { ...bindings, variables } as never);
    if (result !== true) return validation.message;
  }
  return undefined;
}

describe('the project-writer admission fence', () => {
  it('matches every write of an AppProject, fails closed, and denies when its parameters are missing', () => {
    expect(policy.spec.matchConstraints).toEqual({
      resourceRules: [
        {
          apiGroups: ['argoproj.io'],
          apiVersions: ['*'],
          operations: ['CREATE', 'UPDATE', 'DELETE'],
          resources: ['appprojects'],
        },
      ],
    });
    expect(policy.spec.failurePolicy).toBe('Fail');
    expect(binding['spec']).toEqual({
      policyName: 'pharos-project-writer',
      validationActions: ['Deny'],
      paramRef: { name: 'pharos-project-writer', namespace: 'argocd', parameterNotFoundAction: 'Deny' },
    });
    expect(binding['metadata']['namespace']).toBeUndefined();
  });

  it('lets the bootstrap administrator add and remove a deny window, create and delete a project', () => {
    expect(admit('system:admin', 'UPDATE', project([WINDOW]), project([]))).toBeUndefined();
    expect(admit('system:admin', 'UPDATE', project([]), project([WINDOW]))).toBeUndefined();
    expect(admit('system:admin', 'CREATE', project([WINDOW]), null)).toBeUndefined();
    expect(admit('system:admin', 'DELETE', null, project([WINDOW]))).toBeUndefined();
  });

  it("denies Argo CD's service accounts any write, even one that leaves the windows alone", () => {
    const denied = "Argo CD's service accounts may not write AppProjects: they belong to the bootstrap";
    expect(
      admit(
        'system:serviceaccount:argocd:argocd-application-controller',
        'UPDATE',
        project([], 'self-healed'),
        project([WINDOW]),
      ),
    ).toBe(denied);
    expect(
      admit('system:serviceaccount:argocd:argocd-server', 'UPDATE', project([WINDOW], 'renamed'), project([WINDOW])),
    ).toBe(denied);
    expect(admit('system:serviceaccount:argocd:argocd-application-controller', 'CREATE', project([]), null)).toBe(
      denied,
    );
  });

  it('lets anyone else edit a project but not its sync windows, and not delete it', () => {
    const denied = "only the bootstrap administrator may change an AppProject's sync windows or delete an AppProject";
    expect(admit('alice', 'UPDATE', project([WINDOW], 'new description'), project([WINDOW]))).toBeUndefined();
    expect(admit('alice', 'UPDATE', project([WINDOW]), project([]))).toBe(denied);
    expect(admit('alice', 'UPDATE', project([{ ...WINDOW, duration: '24h' }]), project([WINDOW]))).toBe(denied);
    expect(admit('alice', 'CREATE', project([]), null)).toBeUndefined();
    expect(admit('alice', 'CREATE', project([WINDOW]), null)).toBe(denied);
    expect(admit('alice', 'DELETE', null, project([]))).toBe(denied);
    // Another namespace's service account is not Argo CD's.
    expect(admit('system:serviceaccount:pharos:default', 'UPDATE', project([WINDOW]), project([]))).toBe(denied);
  });
});
