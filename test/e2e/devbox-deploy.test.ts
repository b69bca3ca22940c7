// make deploy end to end: the real ansible-playbook against this machine (a local connection, every path under a
// test folder), the AAI through the Keycloak admin API double, provider tokens from real files, and the delivery to
// the test dev box (Kubernetes API test server, Argo CD and BuildKit simulators, real registry and Git).
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmod, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { readJournal } from '../../scripts/lib/steps/jsonl-journal.ts';
import { readReceipt } from '../../scripts/lib/target/receipt.ts';
import { readOwnership, writeOwnership } from '../../scripts/lib/ownership/ownership-store.ts';
import { writeHeldLease } from '../support/devbox/held-lease.ts';
import { leaseWindow } from '../../scripts/lib/ownership/lease-window.ts';
import { appendWindow, readWindows } from '../../scripts/lib/ownership/project-windows.ts';
import { startTestDevbox } from '../support/devbox/test-devbox.ts';
import type { TestDevbox } from '../support/devbox/test-devbox.ts';
import { startKeycloakDouble } from '../support/deploy/keycloak-double.ts';
import type { KeycloakDouble } from '../support/deploy/keycloak-double.ts';

const TOP = resolve(import.meta.dirname, '../..');
const NODE = join(TOP, 'node_modules/.bin/node');
const REF = { namespace: 'argocd', name: 'pharos-platform-ownership' };

let box: TestDevbox;
let aai: KeycloakDouble;
let dir = '';
let hostRoot = '';
let tokenFile = '';

async function run(args: string[], timeoutMs = 170_000): Promise<{ code: number; stdout: string; stderr: string }> {
  const result = await exec(
    NODE,
    [
      join(TOP, 'scripts/devbox.ts'),
      ...args,
      '--target',
      box.target,
      '--targets',
      box.targetsDir,
      '--repo',
      box.repo.dir,
    ],
    { timeoutMs },
  );
  return { code: result.code, stdout: result.stdout.toString('utf8'), stderr: result.stderr };
}
const deployCli = (...extra: string[]) => run(['deploy', ...extra]);

async function secretText(namespace: string, name: string, key: string): Promise<string | undefined> {
  const secret = await box.kube.get('Secret', namespace, name);
  const value = (secret?.['data'] as Record<string, string> | undefined)?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

/** Layers applied, AAI client and token in their Secrets, the commit recorded and received, nothing holds the target. */
async function expectDeployed(commit: string): Promise<void> {
  const data = await box.ownershipData();
  expect(JSON.parse(data?.['revision'] ?? '""')).toBe(commit);
  expect(data?.['delivery']).toBeUndefined();
  expect(data?.['lease']).toBeUndefined();
  const receipt = await readReceipt(join(box.repo.dir, '.local/metallo', box.target, 'receipt.json'));
  expect(receipt?.commit).toBe(commit);
  expect(Object.values(receipt?.images ?? {}).map((i) => i.reference)).toEqual(
    Object.values(JSON.parse(data?.['images'] ?? '{}') as Record<string, string>),
  );
  const mirror = parseYaml(await readFile(join(hostRoot, 'etc/rancher/k3s/registries.yaml'), 'utf8')) as {
    mirrors: Record<string, unknown>;
  };
  expect(Object.keys(mirror.mirrors)).toEqual([box.profile.registry.host]);
  expect((await stat(join(hostRoot, 'etc/sysctl.d/90-pharos-devbox.conf'))).isFile()).toBe(true);
  // The example's bases, by the digest the registry answers, as the builds resolve them.
  for (const repository of ['pharos/base', 'pharos/postgres-base'])
    expect(await box.registry.digest(repository, 'local')).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(await secretText('pharos', 'gitlab-token', 'token')).toBe('glpat-test-token-1');
  expect(await secretText('argocd', 'argocd-oidc', 'clientID')).toBe('argocd');
  expect(await secretText('argocd', 'argocd-oidc', 'clientSecret')).toBe([...aai.clients.values()][0]?.secret);
}

beforeAll(async () => {
  // Nothing seeded: the deploy puts the bases into the registry before its delivery builds on them.
  [box, aai] = await Promise.all([startTestDevbox({ seed: false }), startKeycloakDouble()]);
  dir = await mkdtemp(join(tmpdir(), 'pharos-deploy16-'));
  hostRoot = join(dir, 'host');
  await writeFile(
    join(dir, 'inventory.ini'),
    `[devbox]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n`,
  );
  tokenFile = join(dir, 'gitlab.token');
  await writeFile(tokenFile, 'glpat-test-token-1\n', { mode: 0o600 });
  await writeFile(join(dir, 'aai.json'), JSON.stringify(aai.admin), { mode: 0o600 });
  const file = join(box.targetsDir, `${box.target}.yaml`);
  const profile = parseYaml(await readFile(file, 'utf8')) as Record<string, unknown>;
  profile['deploy'] = {
    inventory: join(dir, 'inventory.ini'),
    // The bootstrap layer is exercised in devbox-deploy-ansible.test.ts; two layers keep these deploys short.
    layers: ['host', 'k3s'],
    vars: { pharos_root: hostRoot, k3s_install: false },
    aai: {
      issuer: aai.issuer,
      credentials: join(dir, 'aai.json'),
      clients: [
        {
          name: 'argocd',
          namespace: 'argocd',
          secret: 'argocd-oidc',
          redirectUris: ['https://argocd.devbox.test/auth/callback'],
        },
      ],
    },
    tokens: [{ provider: 'gitlab', file: tokenFile, namespace: 'pharos', secret: 'gitlab-token' }],
  };
  await writeFile(file, stringify(profile));
  const first = await deployCli();
  expect(first.code, first.stderr).toBe(0);
}, 300_000);
afterAll(async () => {
  await Promise.allSettled([box?.stop(), aai?.close()]);
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe('make deploy (devbox.ts deploy)', () => {
  it('applies the layers, registers the AAI client, copies the token, delivers HEAD and writes the receipt, in one journal', async () => {
    await expectDeployed(await box.repo.git('rev-parse', 'HEAD'));
    const journal = (await readJournal(join(box.repo.dir, '.local/metallo', box.target, 'journal.jsonl'))).filter(
      (e) => e.command === 'deploy',
    );
    // The layers first: on a fresh box they make the cluster the claim reads.
    expect(journal.map((e) => e.step)).toEqual([
      'layer-host',
      'layer-k3s',
      'claim',
      'bases',
      'aai',
      'provider-tokens',
      'push',
      'fingerprint',
      'compare',
      'build',
      'record',
      'root-inputs',
      'receipt',
      'sync',
      'release',
    ]);
    const host = box.profile.registry.host;
    const digest = async (repository: string) =>
      `${host}/${repository}@${await box.registry.digest(repository, 'local')}`;
    expect(journal.find((e) => e.step === 'bases')?.['bases']).toEqual({
      'pharos/base:local': await digest('pharos/base'),
      'pharos/postgres-base:local': await digest('pharos/postgres-base'),
    });
    expect(aai.requests.filter((r) => r.startsWith('POST /admin'))).toEqual(['POST /admin/realms/pharos/clients']);
  });

  it('--check runs every layer in check mode and changes nothing, not even the ownership record', async () => {
    const before = await box.ownershipData();
    await rm(join(hostRoot, 'etc/sysctl.d/90-pharos-devbox.conf'));
    const checked = await deployCli('--check');
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/^layer host: checked on localhost: 1 would change$/m);
    expect(checked.stdout).toMatch(/^layer k3s: checked on localhost: 0 would change$/m);
    expect(checked.stdout).not.toMatch(/^layer bootstrap/m);
    await expect(stat(join(hostRoot, 'etc/sysctl.d/90-pharos-devbox.conf'))).rejects.toThrow(/ENOENT/);
    expect(await box.ownershipData()).toEqual(before);
  });

  it('refuses while an unexpired takeover lease holds the target (exit 3) once the layers ran, delivering nothing and keeping the lease whole', async () => {
    const { before: snapshot, lease } = await writeHeldLease(box.kube);
    const refused = await deployCli();
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(
      /a takeover lease of ana-laptop:\/home\/ana\/platform on \[themelio-compat\] holds it until/,
    );
    // The layers run before the claim (there may be no cluster before them); nothing after the claim does.
    expect(refused.stderr).toMatch(/step=layer-k3s/);
    expect(refused.stderr).not.toMatch(/step=(bases|aai|provider-tokens|push)/);
    const after = await readOwnership(box.kube, REF);
    expect(after.records.lease).toEqual(lease);
    expect(after.data['revision']).toBe(snapshot.data['revision']);
    await writeOwnership(box.kube, after, { lease: null });
  });

  it('removes an expired lease (record and deny window) first, then deploys', async () => {
    const { before: snapshot, lease } = await writeHeldLease(box.kube, new Date(Date.now() - 3 * 3_600_000));
    await appendWindow(
      box.kube,
      'argocd',
      await readWindows(box.kube, 'argocd', 'pharos'),
      leaseWindow(lease),
      () => false,
    );
    const commit = await box.repo.commit('deploy after expired lease', { 'docs/expired.md': 'x\n' });
    const secret = await secretText('argocd', 'argocd-oidc', 'clientSecret');
    const result = await deployCli('--json');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/cleanup: removing the expired lease of ana-laptop:\/home\/ana\/platform/);
    expect((await readWindows(box.kube, 'argocd', 'pharos')).windows ?? []).toEqual([]);
    await expectDeployed(commit);
    // A second deploy changes nothing the first one set up: the layers are idempotent and the AAI secret is kept.
    const steps = (JSON.parse(result.stdout) as { steps: { step: string; summary: string }[] }).steps;
    expect(steps.find((s) => s.step === 'layer-k3s')?.summary).toBe('applied on localhost: 0 changed');
    expect(steps.find((s) => s.step === 'aai')?.summary).toBe('argocd → argocd/argocd-oidc unchanged');
    expect(await secretText('argocd', 'argocd-oidc', 'clientSecret')).toBe(secret);
    expect(aai.clients.size).toBe(1);
  });

  it('refuses a token file others can read, naming the file and the mode, before claiming the target or running a layer', async () => {
    await chmod(tokenFile, 0o644);
    try {
      const commit = JSON.parse((await box.ownershipData())?.['revision'] ?? '""') as string;
      await box.repo.commit('deploy with a bad token', { 'docs/token.md': 'x\n' });
      const result = await deployCli();
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`Cannot use provider token "${tokenFile}": mode 644 lets others read it`);
      expect(result.stderr).not.toContain('glpat-');
      expect(result.stderr).not.toMatch(/step=/);
      expect(JSON.parse((await box.ownershipData())?.['revision'] ?? '""')).toBe(commit);
      expect((await box.ownershipData())?.['delivery']).toBeUndefined();
    } finally {
      await chmod(tokenFile, 0o600);
    }
  });

  it('refuses a token file that is a FIFO at once (exit 2 naming it), instead of waiting for a writer that never comes', async () => {
    const real = `${tokenFile}.real`;
    await rename(tokenFile, real);
    execFileSync('mkfifo', ['-m', '600', tokenFile]);
    try {
      const commit = JSON.parse((await box.ownershipData())?.['revision'] ?? '""') as string;
      await box.repo.commit('deploy with a FIFO token', { 'docs/fifo.md': 'x\n' });
      const started = Date.now();
      const result = await deployCli();
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`Cannot read provider token "${tokenFile}": it is a FIFO, not a regular file`);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(JSON.parse((await box.ownershipData())?.['revision'] ?? '""')).toBe(commit);
      expect((await box.ownershipData())?.['delivery']).toBeUndefined();
    } finally {
      await rm(tokenFile, { force: true });
      await rename(real, tokenFile);
    }
  });

  // The delivery's own step boundaries are crashed in devbox-recovery.test.ts. Of deploy's: between layers (nothing
  // claimed yet), right after the claim, and after the last deploy step (every layer, AAI step and token step is resumed by the same code,
  // whose rules test/unit/devbox/deploy-steps.test.ts covers step by step).
  it.each(['layer-host', 'claim', 'provider-tokens'])(
    'a deploy killed right after step "%s" holds the target until a rerun converges, without repeating finished deploy steps',
    async (step) => {
      const commit = await box.repo.commit(`deploy crash at ${step}`, { 'docs/crash.md': `${step}\n` });
      await rm(join(hostRoot, 'etc/rancher/k3s/registries.yaml'), { force: true });
      const crashed = await exec(
        NODE,
        [join(TOP, 'test/support/deploy/deploy-crash-runner.ts'), box.targetsDir, box.target, box.repo.dir, step],
        { timeoutMs: 170_000 },
      );
      expect(crashed.code, crashed.stderr).toBe(128);
      const journalFile = join(box.repo.dir, '.local/metallo', box.target, 'journal.jsonl');
      expect((await readJournal(journalFile)).at(-1)?.step).toBe(step);
      const record = JSON.parse((await box.ownershipData())?.['delivery'] ?? '{}') as {
        commit?: string;
        expires?: string;
      };
      if (step === 'layer-host')
        expect(record).toEqual({}); // killed before its claim: nothing holds the target
      else {
        expect(record.commit).toBe(commit);
        expect(Date.parse(record.expires ?? '')).toBeGreaterThan(Date.now() + 3_600_000); // deploy.ttl (2 h), not delivery.ttl
      }
      if (step === 'claim') {
        // The unfinished deploy's record holds the target: a takeover is refused (the same record at every boundary).
        const held = await exec(
          NODE,
          [
            join(TOP, 'scripts/takeover.ts'),
            'start',
            'compat-web',
            '--target',
            box.target,
            '--targets',
            box.targetsDir,
            '--repo',
            box.repo.dir,
          ],
          { timeoutMs: 60_000 },
        );
        expect(held.code, held.stderr).toBe(3);
        expect(held.stderr).toMatch(/a delivery of [0-9a-f]{12} by .* runs until/);
      }
      const again = await deployCli();
      expect(again.code, again.stderr).toBe(0);
      await expectDeployed(commit);
      const rerun = (await readJournal(journalFile)).slice(-15);
      const resumable = ['layer-host', 'layer-k3s', 'bases', 'aai', 'provider-tokens'];
      const order = ['layer-host', 'layer-k3s', 'claim', 'bases', 'aai', 'provider-tokens'];
      const done = order.slice(0, order.indexOf(step) + 1);
      for (const name of resumable) {
        const summary = rerun.find((e) => e.step === name)?.summary;
        if (done.includes(name)) expect(summary).toMatch(/^already done by run /);
        else expect(summary).not.toMatch(/^already done/);
      }
    },
  );
});
