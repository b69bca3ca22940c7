// make deploy from nothing: an empty cluster (the Kubernetes API test server with none of the dev box's namespaces,
// no AppProject, no root Application), the real ansible-playbook running every layer against this machine (a local
// connection, every path under a test folder), the bootstrap layer's kubectl talking to that server as the
// bootstrap administrator, then the delivery with the Argo CD and BuildKit simulators, the real registry and Git.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { readJournal } from '../../scripts/lib/steps/jsonl-journal.ts';
import { readOwnership, writeOwnership } from '../../scripts/lib/ownership/ownership-store.ts';
import { writeHeldLease } from '../support/devbox/held-lease.ts';
import { leaseWindow } from '../../scripts/lib/ownership/lease-window.ts';
import { appendWindow, readWindows } from '../../scripts/lib/ownership/project-windows.ts';
import { removeWindows } from '../../scripts/lib/ownership/project-windows.ts';
import { isLeaseShaped } from '../../scripts/lib/ownership/lease-window.ts';
import { startTestDevbox } from '../support/devbox/test-devbox.ts';
import {
  dockerCatalogue,
  getFromContainer,
  RECORDS,
  removeTakeoverLeftovers,
  startClusterRoute,
  takeoverContainers,
} from '../support/takeover/docker-platform.ts';
import { crashTakeover } from '../support/takeover/takeover-cli.ts';
import { SIM_LABEL } from '../support/telepresence-simulator/docker-mode.ts';
import type { TestDevbox } from '../support/devbox/test-devbox.ts';

const TOP = resolve(import.meta.dirname, '../..');
const NODE = join(TOP, 'node_modules/.bin/node');
const REF = { namespace: 'argocd', name: 'pharos-platform-ownership' };

let box: TestDevbox;
let dir = '';
let first: { code: number; stdout: string; stderr: string };

/** `devbox <command>` on the box from `checkout` (default the box's own), with `env` when given. */
async function devbox(
  command: string,
  extra: readonly string[] = [],
  checkout = box.repo.dir,
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = [command, ...extra, '--target', box.target, '--targets', box.targetsDir, '--repo', checkout];
  const result = await exec(NODE, [join(TOP, 'scripts/devbox.ts'), ...args], {
    timeoutMs: 250_000,
    ...(env === undefined ? {} : { env }),
  });
  return { code: result.code, stdout: result.stdout.toString('utf8'), stderr: result.stderr };
}

const deployCli = (...extra: string[]) => devbox('deploy', extra);

/** What the bootstrap owns and a rerun must leave as it is. */
async function bootstrapped(): Promise<unknown> {
  const projects = await box.kube.list('AppProject', 'argocd');
  const root = await box.kube.get('Application', 'argocd', 'pharos-root');
  return { projects, root: { metadata: root?.metadata, spec: root?.['spec'] } };
}

beforeAll(async () => {
  // Nothing bootstrapped and nothing seeded: the deploy makes the namespaces, AppProjects and root, and seeds the bases.
  box = await startTestDevbox({ bootstrap: 'none', seed: false });
  dir = await mkdtemp(join(tmpdir(), 'pharos-deploy29-'));
  await writeFile(
    join(dir, 'inventory.ini'),
    `[devbox]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n`,
  );
  const file = join(box.targetsDir, `${box.target}.yaml`);
  const profile = parseYaml(await readFile(file, 'utf8')) as Record<string, unknown>;
  profile['deploy'] = {
    inventory: join(dir, 'inventory.ini'),
    layers: ['host', 'k3s', 'bootstrap'],
    vars: {
      pharos_root: join(dir, 'host'),
      k3s_install: false,
      // The test API server stands for k3s: its admin kubeconfig, and no OpenAPI documents to validate against.
      bootstrap_kubeconfig: box.kubeconfig,
      bootstrap_validate: 'false',
      bootstrap_retries: 2,
      bootstrap_retry_delay: 1,
    },
  };
  await writeFile(file, stringify(profile));
  expect(await box.kube.list('AppProject', 'argocd').catch(() => [])).toEqual([]);
  first = await deployCli('--json');
}, 400_000);
afterAll(async () => {
  await box?.stop();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe('make deploy on an empty cluster', () => {
  it('runs the layers first, the bootstrap makes the namespaces, AppProjects and root, then the delivery syncs it', async () => {
    expect(first.code, first.stderr).toBe(0);
    const commit = await box.repo.git('rev-parse', 'HEAD');
    const journal = (await readJournal(join(box.repo.dir, '.local/metallo', box.target, 'journal.jsonl'))).map(
      (e) => e.step,
    );
    expect(journal.slice(0, 4)).toEqual(['layer-host', 'layer-k3s', 'layer-bootstrap', 'claim']);
    expect(journal.at(-1)).toBe('release');
    expect((await box.kube.list('AppProject', 'argocd')).map((p) => p.metadata.name).sort()).toEqual([
      'pharos',
      'pharos-root',
    ]);
    // The root the bootstrap created, pinned by the delivery to the commit, and synced with its children.
    const data = await box.ownershipData();
    expect(JSON.parse(data?.['revision'] ?? '""')).toBe(commit);
    const root = (await box.rootSource()) as { targetRevision: string };
    expect(root.targetRevision).toBe(commit);
    for (const name of ['pharos-root', 'pharos', 'themelio-compat']) {
      const app = (await box.kube.get('Application', 'argocd', name)) as {
        status?: { sync?: { status?: string; revision?: string }; health?: { status?: string } };
      };
      expect({ name, sync: app.status?.sync?.status, health: app.status?.health?.status }).toEqual({
        name,
        sync: 'Synced',
        health: 'Healthy',
      });
      expect(app.status?.sync?.revision).toBe(commit);
    }
    // Every build Job ran in the build namespace the bootstrap made.
    expect((await box.kube.list('Job', 'pharos-build')).length).toBeGreaterThan(0);
  });

  it('a rerun changes nothing: no layer changes, nothing builds, the AppProjects and the root stay as they are', async () => {
    const before = await bootstrapped();
    const again = await deployCli('--json');
    expect(again.code, again.stderr).toBe(0);
    const steps = (JSON.parse(again.stdout) as { steps: { step: string; summary: string }[] }).steps;
    for (const layer of ['layer-host', 'layer-k3s', 'layer-bootstrap'])
      expect(steps.find((s) => s.step === layer)?.summary, layer).toBe('applied on localhost: 0 changed');
    expect(steps.find((s) => s.step === 'build')?.summary).toBe('nothing built');
    expect(await bootstrapped()).toEqual(before);
  });

  it('refuses under an unexpired lease (exit 3) after the layers, which keep its window and record', async () => {
    const { before: snapshot, lease } = await writeHeldLease(box.kube);
    await appendWindow(
      box.kube,
      'argocd',
      await readWindows(box.kube, 'argocd', 'pharos'),
      leaseWindow(lease),
      () => false,
    );
    const before = await bootstrapped();
    await box.repo.commit('deploy under a lease', { 'docs/lease.md': 'x\n' });
    const refused = await deployCli();
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/a takeover lease of ana-laptop:\/home\/ana\/platform on \[themelio-compat\]/);
    expect(refused.stderr).toMatch(/step=layer-bootstrap .*0 changed/);
    expect(await bootstrapped()).toEqual(before);
    expect((await readWindows(box.kube, 'argocd', 'pharos')).windows).toEqual([leaseWindow(lease)]);
    const after = await readOwnership(box.kube, REF);
    expect(after.records.lease).toEqual(lease);
    expect(after.data['revision']).toBe(snapshot.data['revision']);
    expect(after.records.delivery).toBeUndefined();
  });
});

describe('then a takeover on the box it set up, its holder killed, and a delivery from a second checkout', () => {
  it('the local api container reaches a cluster Service; once the lease expired, the delivery leaves nothing running or routed', async () => {
    // The refusal above left another workstation's lease: its holder hands back.
    const held = await readOwnership(box.kube, REF);
    await removeWindows(box.kube, 'argocd', await readWindows(box.kube, 'argocd', 'pharos'), isLeaseShaped);
    await writeOwnership(box.kube, held, { lease: null });
    const route = await startClusterRoute();
    const b = await mkdtemp(join(tmpdir(), 'pharos-deploy29-b-'));
    try {
      // Deliver: api now runs with Docker when taken over.
      await box.repo.commit('api runs with Docker in a takeover', {
        'gitops/manifests/images.yaml': await dockerCatalogue(),
      });
      const delivered = await devbox('reconcile', [], box.repo.dir, route.telepresence.env);
      expect(delivered.code, delivered.stderr).toBe(0);

      // A takes over api with the Docker runtime through Telepresence's Docker mode, and is killed once replaced.
      const crashed = await crashTakeover(
        { targetsDir: box.targetsDir, target: box.target, checkout: box.repo.dir },
        'replace',
        { docker: true, timeoutMs: 180_000, env: { ...route.telepresence.env, PHAROS_CRASH_TTL_MS: '20000' } },
      );
      expect(crashed.code, crashed.stderr).toBe(128);
      const [container] = await takeoverContainers(box.repo.dir);
      expect(container).toBeDefined();
      const reached = await getFromContainer(container!, `http://${RECORDS.name}.${RECORDS.namespace}/`);
      expect(reached, reached.out).toEqual({ code: 0, out: expect.stringContaining(RECORDS.body) });
      expect(Object.keys(route.telepresence.state().replaced)).not.toEqual([]);

      const lease = (await readOwnership(box.kube, REF)).records.lease!;
      await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(lease.expires) - Date.now() + 1500)));

      // B, another checkout of the same repository, delivers: its clean-up removes everything the lease held.
      const cloned = await exec('git', ['clone', '--quiet', box.repo.dir, b]);
      expect(cloned.code, cloned.stderr).toBe(0);
      const run = await devbox('reconcile', [], b, route.telepresence.env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/cleanup: removing the expired lease of /);
      expect(await takeoverContainers(box.repo.dir)).toEqual([]);
      const sim = route.telepresence.state();
      expect({ replaced: sim.replaced, agents: sim.agents }).toEqual({ replaced: {}, agents: {} });
      // Every daemon container this box's Telepresence started (other suites run their own beside it).
      const daemons = await exec('docker', [
        'ps',
        '--all',
        '--quiet',
        '--filter',
        `label=${SIM_LABEL}=${route.telepresence.home}`,
        '--filter',
        'name=^tp-',
      ]);
      expect(daemons.stdout.toString('utf8').trim()).toBe('');
      const after = await readOwnership(box.kube, REF);
      expect(after.records.lease).toBeUndefined();
      expect(after.records.cleaned?.by).toBe('a delivery');
      expect((await readWindows(box.kube, 'argocd', 'pharos')).windows ?? []).toEqual([]);
      expect(await route.get('/health')).toBe('served by the cluster\n');
    } finally {
      await route.stop();
      await removeTakeoverLeftovers(box.repo.dir, box.target);
      await rm(b, { recursive: true, force: true });
    }
  }, 600_000);
});
