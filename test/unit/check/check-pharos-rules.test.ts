import { describe, expect, it } from 'vitest';
import { brief, check, cleanPlatform, CATALOGUE } from './fixture.ts';

// The pharos administration rules: each fixture breaks one, and the finding names its file and line.
const DATABASE_ADMIN = `  database-admin:
    image: acme/database-admin
    application: shop
    context: .
    dockerfile: admin/Dockerfile
    inputs: [admin, devops]
`;

const POLICIES = [
  'apiVersion: networking.k8s.io/v1', //            1
  'kind: NetworkPolicy', //                         2
  'metadata:', //                                   3
  '  name: default-deny', //                        4
  '  annotations: {argocd.argoproj.io/sync-wave: "-4"}', // 5
  'spec:', //                                       6
  '  podSelector: {}', //                           7
  '  policyTypes: [Ingress, Egress]', //            8
  '---',
  'apiVersion: networking.k8s.io/v1',
  'kind: NetworkPolicy',
  'metadata:',
  '  name: only-api', //                            13
  'spec:',
  '  podSelector: {matchLabels: {app: api}}',
  '',
].join('\n');

const HOOK = [
  'apiVersion: batch/v1', //                        1
  'kind: Job', //                                   2
  'metadata:', //                                   3
  '  name: provision', //                           4
  '  annotations:', //                              5
  '    argocd.argoproj.io/hook: Sync', //           6
  '    argocd.argoproj.io/sync-wave: "-1"', //      7
  'spec:', //                                       8
  '  template:', //                                 9
  '    spec:', //                                   10
  '      containers:', //                           11
  '        - name: p', //                           12
  '          image: acme/database-admin', //        13
  '          args: [node, scripts/provision-contexts.ts, --secrets]', // 14
  '      volumes:', //                              15
  '        - name: secrets', //                     16
  '          projected:',
  '            sources:',
  '              - secret: {name: postgres-credentials, items: [{key: POSTGRES_PASSWORD, path: POSTGRES_PASSWORD}]}',
  '              - secret: {name: metallo-credentials, items: [{key: SHOP_DATABASE_PASSWORD, path: SHOP_DATABASE_PASSWORD}]}',
  '',
].join('\n');

const CONTEXTS = `{
  "schema": 1,
  "contexts": {
    "shop": { "database": "shop", "role": "shop", "binding": "SHOP_DATABASE_PASSWORD", "migrations": "devops/migrations/shop" }
  }
}
`;
const INVENTORY = JSON.stringify(
  {
    schema: 1,
    keys: { POSTGRES_PASSWORD: { owners: ['postgres'] }, SHOP_DATABASE_PASSWORD: { owners: ['api', 'metallo'] } },
  },
  null,
  2,
);

function pharosPlatform(): Record<string, string> {
  const files = cleanPlatform();
  files['gitops/manifests/images.yaml'] = `${CATALOGUE}${DATABASE_ADMIN}`;
  files['admin/Dockerfile'] = 'FROM base\nCOPY devops/ /opt/pharos/devops/\nCOPY admin/run.sh /opt/pharos/\n';
  files['admin/run.sh'] = 'true\n';
  files['devops/contexts.json'] = CONTEXTS;
  files['devops/secret-keys.json'] = INVENTORY;
  files['devops/migrations/shop/0001_init.sql'] = 'CREATE TABLE t (x int);\n';
  files['gitops/manifests/shop/policies.yaml'] = POLICIES;
  files['gitops/manifests/shop/provision.yaml'] = HOOK;
  return files;
}

const pharosOnly = (lines: string[]) =>
  lines.filter((l) => /^(context-|policy-after-hooks|unreadable-registry)/.test(l));

describe('check: the pharos administration rules', () => {
  it('a platform whose contexts are bound, carried and fenced has no finding', async () => {
    expect(pharosOnly(brief(await check(pharosPlatform())))).toEqual([]);
  });

  it('a repository without devops/contexts.json is not checked for them', async () => {
    expect(pharosOnly(brief(await check(cleanPlatform())))).toEqual([]);
  });

  it("context-binding: a registered context the provision Job does not bind, at the Job's first volume", async () => {
    const files = pharosPlatform();
    files['gitops/manifests/shop/provision.yaml'] = HOOK.replace(
      '{key: SHOP_DATABASE_PASSWORD, path: SHOP_DATABASE_PASSWORD}',
      '{key: OTHER, path: OTHER}',
    );
    const findings = await check(files);
    expect(pharosOnly(brief(findings))).toEqual([
      'context-binding database-admin gitops/manifests/shop/provision.yaml:16',
    ]);
    expect(findings.find((f) => f.rule === 'context-binding')?.message).toBe(
      'Job "provision" does not bind "SHOP_DATABASE_PASSWORD" of Secret "metallo-credentials" (context "shop"): provisioning it would fail',
    );
  });

  it("context-binding: a binding the inventory does not give to metallo, at the context's line", async () => {
    const files = pharosPlatform();
    files['devops/secret-keys.json'] = JSON.stringify({
      schema: 1,
      keys: { POSTGRES_PASSWORD: { owners: ['postgres'] }, SHOP_DATABASE_PASSWORD: { owners: ['api'] } },
    });
    const findings = await check(files);
    expect(pharosOnly(brief(findings))).toEqual(['context-binding database-admin devops/contexts.json:4']);
    expect(findings.find((f) => f.rule === 'context-binding')?.message).toContain(
      'key "SHOP_DATABASE_PASSWORD" is not in devops/secret-keys.json for owner "metallo"',
    );
  });

  it('context-binding: no Job runs the provisioning at all', async () => {
    const files = pharosPlatform();
    delete files['gitops/manifests/shop/provision.yaml'];
    expect(pharosOnly(brief(await check(files)))).toEqual(['context-binding database-admin devops/contexts.json:1']);
  });

  it("context-migrations: migrations outside the database-admin image's inputs, at its inputs line", async () => {
    const files = pharosPlatform();
    files['gitops/manifests/images.yaml'] =
      `${CATALOGUE}${DATABASE_ADMIN.replace('inputs: [admin, devops]', 'inputs: [admin, devops/contexts.json]')}`;
    files['admin/Dockerfile'] =
      'FROM base\nCOPY devops/contexts.json /opt/pharos/devops/\nCOPY admin/run.sh /opt/pharos/\n';
    const findings = await check(files);
    expect(pharosOnly(brief(findings))).toEqual(['context-migrations database-admin gitops/manifests/images.yaml:22']);
    expect(findings.find((f) => f.rule === 'context-migrations')?.message).toContain(
      'context "shop": migrations "devops/migrations/shop" are not under the inputs of "database-admin" (admin, devops/contexts.json)',
    );
  });

  it('policy-after-hooks: a namespace-wide policy in the same wave as a hook, at the policy', async () => {
    const files = pharosPlatform();
    files['gitops/manifests/shop/policies.yaml'] = POLICIES.replace('sync-wave: "-4"', 'sync-wave: "-1"');
    const findings = await check(files);
    expect(pharosOnly(brief(findings))).toEqual([
      'policy-after-hooks database-admin gitops/manifests/shop/policies.yaml:5',
    ]);
    expect(findings.find((f) => f.rule === 'policy-after-hooks')?.message).toBe(
      'namespace-wide NetworkPolicy "default-deny" syncs in wave -1, not before hook Job "provision" in wave -1 (provision.yaml:1): the hook would run unfenced',
    );
  });

  it('policy-after-hooks: a namespace-wide policy without a wave, and a PreSync hook that runs before every wave', async () => {
    const files = pharosPlatform();
    files['gitops/manifests/shop/policies.yaml'] = POLICIES.replace(
      '  annotations: {argocd.argoproj.io/sync-wave: "-4"}\n',
      '',
    );
    files['gitops/manifests/shop/migrate.yaml'] =
      'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations: {argocd.argoproj.io/hook: PreSync}\nspec: {}\n';
    const findings = await check(files);
    expect(pharosOnly(brief(findings))).toEqual([
      'policy-after-hooks database-admin gitops/manifests/shop/policies.yaml:4',
      'policy-after-hooks database-admin gitops/manifests/shop/policies.yaml:4',
    ]);
    expect(
      findings
        .filter((f) => f.rule === 'policy-after-hooks')
        .map((f) => f.message)
        .join('\n'),
    ).toContain('before hook Job "migrate" a PreSync hook, which runs before every wave');
  });

  it('unreadable-registry: a context registry that does not parse, with the field', async () => {
    const files = pharosPlatform();
    files['devops/contexts.json'] = CONTEXTS.replace('"role": "shop"', '"role": "Shop Role"');
    const findings = await check(files);
    expect(pharosOnly(brief(findings))).toEqual(['unreadable-registry database-admin devops/contexts.json:1']);
    expect(findings.find((f) => f.rule === 'unreadable-registry')?.message).toContain(
      'contexts.shop.role: must be a lower-case PostgreSQL name such as "catalog" (value "Shop Role")',
    );
  });
});
