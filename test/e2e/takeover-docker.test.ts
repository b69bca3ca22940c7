// Docker-runtime takeover through the Telepresence SIMULATOR, the test Kubernetes API server, the Argo CD simulator
// and the real Docker Engine: the cluster route reaches the local container, saves restart what they move, and the
// hand-back runs in the documented order.
import { appendFile, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../scripts/lib/steps/jsonl-journal.ts';
import type { JournalEntry } from '../../scripts/lib/steps/jsonl-journal.ts';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { isLeaseShaped } from '../../scripts/lib/ownership/index.ts';
import { ensureBaseImage } from '../support/base-image.ts';
import {
  apiWithEnvironment,
  dockerCatalogue,
  getFromContainer,
  RECORDS,
  removeTakeoverLeftovers,
  startClusterRoute,
  takeoverContainers,
} from '../support/takeover/docker-platform.ts';
import type { ClusterRoute } from '../support/takeover/docker-platform.ts';
import { startTestTarget } from '../support/takeover/test-target.ts';
import type { TestTarget } from '../support/takeover/test-target.ts';
import {
  crashSite,
  crashTakeover,
  startTakeover,
  stopAllTakeovers,
  takeover,
} from '../support/takeover/takeover-cli.ts';
import { inProcess } from '../support/takeover/in-process.ts';
import { cleanupTarget, stopLocalFor, telepresenceReplacement } from '../../scripts/lib/takeover/index.ts';
import type { RunningTakeover } from '../support/takeover/takeover-cli.ts';

let t: TestTarget;
let route: ClusterRoute;
let running: RunningTakeover;
let journalFile: string;

const entries = async (): Promise<JournalEntry[]> =>
  (await readJournal(journalFile)).filter((e) => e.command === 'takeover');
const watchEntries = async () => (await entries()).filter((e) => e.step === 'watch');

beforeAll(async () => {
  await ensureBaseImage();
  t = await startTestTarget({
    syncTimeout: '30s',
    files: {
      'gitops/manifests/images.yaml': await dockerCatalogue(),
      'gitops/manifests/pharos/api.yaml': await apiWithEnvironment(),
    },
  });
  route = await startClusterRoute();
  journalFile = join(t.repo.dir, '.local/metallo', t.name, 'journal.jsonl');
  // An uncommitted contract edit moves api, worker (Docker runtimes) and migrate (none).
  const contract = join(t.repo.dir, 'contracts/api.json');
  await writeFile(contract, (await readFile(contract, 'utf8')).replace(/\}\s*$/, ', "edited": "first"}\n'));
  t.sim.start(50);
}, 120_000);

afterAll(async () => {
  await stopAllTakeovers();
  await route?.stop();
  if (t !== undefined) await removeTakeoverLeftovers(t.repo.dir, t.name);
  await t?.stop();
});

describe('takeover start with the Docker runtime and Telepresence', () => {
  it('builds api and worker from the working tree and serves the cluster route from the local container', async () => {
    expect(await route.get('/health')).toBe('served by the cluster\n');
    running = startTakeover(
      t,
      ['api', 'worker', '--renew-every', '1m', '--debounce', '400ms'],
      undefined,
      route.telepresence.env,
    );
    await running.waitFor(/watching saved files/, 120_000);
    expect(running.stderr()).toMatch(
      /step=replace image=api Deployment pharos\/api replaced through telepresence \(port \d+:8080\)/,
    );
    // The request to the "cluster" port reaches the local container, which serves the edited contract.
    expect(await route.get('/contract.json')).toContain('"edited": "first"');
    // Telepresence replaces the container: the Deployment keeps its replicas, Argo CD sees no drift.
    expect(await t.replicas('pharos', 'api')).toBe(1);
    const calls = await route.telepresence.calls();
    // Docker runtimes only: Telepresence runs its daemon in a container, whose network they share.
    expect(calls).toContainEqual(['connect', '--namespace', 'pharos', '--docker']);
    expect(calls.find((c) => c[0] === 'replace' && c[1] === 'api')).toEqual([
      'replace',
      'api',
      '--address',
      '127.0.0.1',
      '--port',
      '8080:8080', // the daemon reaches the container's port on their shared loopback
      '--container',
      'api',
    ]);
    expect(route.telepresence.state().agents).toEqual({ pharos: ['api', 'worker'] });
    // The container shares the network of the daemon container status names, so it resolves and reaches a cluster
    // Service by its cluster DNS names (short ones in the connected namespace).
    const [api] = (await entries())
      .filter((e) => e.step === 'runtime' && e['image'] === 'api')
      .map((e) => String(e['container']));
    const daemon = `tp-${route.telepresence.docker!.context}-pharos-cn`;
    // Docker records the shared network by the daemon container's id.
    const inspect = async (format: string, what: string) =>
      (await exec('docker', ['inspect', '--format', format, what])).stdout.toString('utf8').trim();
    expect(await inspect('{{.HostConfig.NetworkMode}}', api!)).toBe(`container:${await inspect('{{.Id}}', daemon)}`);
    expect(running.stderr()).toContain(`the Docker runtimes share container:${daemon}`);
    for (const name of ['records', 'records.pharos', 'records.pharos.svc.cluster.local'])
      expect(await getFromContainer(api!, `http://${name}/`)).toEqual({ code: 0, out: `${RECORDS.body}\n` });
    expect(await takeoverContainers(t.repo.dir)).toHaveLength(2);
    // The workload's environment, a Secret key included, is the container's.
    const env = (await exec('docker', ['exec', api!, 'env'])).stdout.toString('utf8');
    expect(env).toContain('API_MODE=from-the-cluster\n');
    expect(env).toContain('API_TOKEN=s3cret value\n');
  });

  it('ignores editor temporaries and .local/', async () => {
    const before = (await watchEntries()).length;
    await writeFile(join(t.repo.dir, 'services/api/src/.serve.sh.swp'), 'swap');
    await writeFile(join(t.repo.dir, 'services/api/src/serve.sh~'), 'backup');
    await writeFile(join(t.repo.dir, 'services/api/src/4913'), '');
    await writeFile(join(t.repo.dir, '.local/scratch.txt'), 'cache');
    await new Promise((r) => setTimeout(r, 1500));
    expect((await watchEntries()).length).toBe(before);
  });

  it('a save in services/api restarts only api, and the route serves the change', async () => {
    const workerBefore = (await takeoverContainers(t.repo.dir)).length;
    const serve = join(t.repo.dir, 'services/api/src/serve.sh');
    await writeFile(serve, (await readFile(serve, 'utf8')).replace('echo "ok version=', 'echo "edited version='));
    await expect.poll(async () => (await watchEntries()).at(-1)?.['restart'], { timeout: 30_000 }).toEqual(['api']);
    await expect.poll(() => route.get('/health').catch(() => ''), { timeout: 60_000 }).toBe('edited version=dev\n');
    expect(workerBefore).toBe(2);
    // The route can serve the new container before its runtime line is journaled: wait for the line, logged after it.
    await running.waitFor(/step=restart image=api /);
    const restarts = (await entries()).filter((e) => e.step === 'runtime' && e['restart'] === true);
    expect(restarts.map((e) => e['image'])).toEqual(['api']);
  });

  it('a save in contracts/ restarts exactly the images whose inputs hold it and reports migrate as needing make reconcile', async () => {
    await appendFile(join(t.repo.dir, 'contracts/schema-version'), '\n');
    await expect
      .poll(async () => (await watchEntries()).at(-1)?.['restart'], { timeout: 30_000 })
      .toEqual(['api', 'worker']);
    const last = (await watchEntries()).at(-1)!;
    const restarted = async () =>
      (await entries()).filter((e) => e.step === 'runtime' && e['restart'] === true).map((e) => e['image']);
    await expect.poll(restarted, { timeout: 60_000 }).toEqual(['api', 'api', 'worker']);
    expect(last['reconcile']).toEqual(['migrate']);
    expect(last['candidates']).toEqual([]);
    await running.waitFor(/migrate changed and has no takeover runtime: it needs make reconcile/);
    await expect.poll(() => route.get('/health').catch(() => ''), { timeout: 60_000 }).toBe('edited version=dev\n');
  });

  it('a save that breaks the build keeps the last good container serving; the fix restarts it', async () => {
    const dockerfile = join(t.repo.dir, 'services/api/Dockerfile');
    const good = await readFile(dockerfile, 'utf8');
    await writeFile(dockerfile, `${good}RUN false\n`);
    await expect
      .poll(async () => (await entries()).filter((e) => e.step === 'watch:failed').length, { timeout: 60_000 })
      .toBe(1);
    expect(await route.get('/health')).toBe('edited version=dev\n');
    await writeFile(dockerfile, good);
    await expect
      .poll(
        async () =>
          (await entries()).filter((e) => e.step === 'runtime' && e['restart'] === true).map((e) => e['image']),
        { timeout: 60_000 },
      )
      .toEqual(['api', 'api', 'worker', 'api']);
    await expect.poll(() => route.get('/health').catch(() => ''), { timeout: 30_000 }).toBe('edited version=dev\n');
  });

  it('takeover status shows the runtimes, the replacements and the agents', async () => {
    const status = await takeover(t, 'status', ['--json'], undefined, route.telepresence.env);
    expect(status.code, status.stderr).toBe(0);
    const json = JSON.parse(status.stdout) as {
      runtimes: { image: string; running: boolean }[];
      replacements: { workload: { name: string }; via: string }[];
      agents: Record<string, string[]>;
    };
    expect(
      json.runtimes
        .filter((r) => r.running)
        .map((r) => r.image)
        .sort(),
    ).toEqual(['api', 'worker']);
    expect(json.replacements.map((r) => `${r.via} ${r.workload.name}`).sort()).toEqual([
      'telepresence api',
      'telepresence worker',
    ]);
    expect(json.agents).toEqual({ pharos: ['api', 'worker'] });
  });

  it('hands back in the documented order: stop, detach, agents once both stopped (then quit), unwindow, unrecord, settle', async () => {
    running.child.kill('SIGTERM');
    expect(await running.exited, running.stderr()).toBe(0);
    const steps = (await entries()).map((e) =>
      e.step === 'handback:cleanup' ? `cleanup:${String(e['action'])}` : e.step,
    );
    const handBack = steps.slice(steps.indexOf('handback:mark'));
    expect(handBack).toEqual([
      'handback:mark',
      'cleanup:stop',
      'cleanup:stop',
      'handback:stop', // the two running containers; the restarted ones went at restart
      'cleanup:detach',
      'cleanup:detach',
      'handback:detach', // no takeover network was made: the containers shared the daemon's

      'cleanup:agents',
      'handback:agents',
      'handback:unwindow',
      'handback:unrecord',
      'handback:settle',
    ]);
    expect(await takeoverContainers(t.repo.dir)).toEqual([]);
    expect((await exec('docker', ['network', 'inspect', `pharos-takeover-${t.name}`])).code).not.toBe(0);
    expect(route.telepresence.state()).toEqual({ connected: null, replaced: {}, agents: {}, disrupted: [] });
    const calls = (await route.telepresence.calls()).map((c) => c.slice(0, 2).join(' '));
    // The attachment of `replace api --container api` is api/api: hand-back detaches that name, not the workload's.
    expect(calls).toContain('detach api/api');
    const lastDetach = calls.findLastIndex((c) => c.startsWith('detach '));
    expect(calls.indexOf('uninstall --all-agents')).toBeGreaterThan(lastDetach);
    // quit ends the daemon container too.
    expect(calls.at(-1)).toBe('quit');
    expect(
      (await exec('docker', ['container', 'inspect', `tp-${route.telepresence.docker!.context}-pharos-cn`])).code,
    ).not.toBe(0);
    expect(await route.get('/health')).toBe('served by the cluster\n');
    expect(await t.lease()).toBeUndefined();
    expect((await t.windows()).some(isLeaseShaped)).toBe(false);
  });
});

describe('an expired lease', () => {
  it('is cleaned up by the next command of this checkout: container stopped, Telepresence replacement left, agents removed', async () => {
    const saved = { PATH: process.env['PATH'], home: process.env['TELEPRESENCE_SIMULATOR_HOME'] };
    process.env['PATH'] = route.telepresence.env['PATH'];
    process.env['TELEPRESENCE_SIMULATOR_HOME'] = route.telepresence.home;
    try {
      const first = await inProcess(t, t.repo.dir, { replacement: telepresenceReplacement(), ttlMs: 60_000 });
      await first.start(['api']);
      expect(await route.get('/health')).toMatch(/^(ok|edited) version=dev\n$/); // the local container answers
      t.clock.advance(2 * 60_000); // the workstation slept past expires
      const next = await inProcess(t, t.repo.dir);
      const cleaned = await cleanupTarget({
        kube: t.kube,
        profile: t.profile,
        clock: t.clock,
        log: () => {},
        stopLocal: stopLocalFor(next.ctx),
      });
      expect(cleaned.done.join('; ')).toContain('removed the lease record');
      expect(await takeoverContainers(t.repo.dir)).toEqual([]);
      expect(route.telepresence.state()).toMatchObject({ replaced: {}, agents: {}, disrupted: [] });
      expect(await route.get('/health')).toBe('served by the cluster\n');
      expect(await t.lease()).toBeUndefined();
    } finally {
      process.env['PATH'] = saved.PATH;
      if (saved.home === undefined) delete process.env['TELEPRESENCE_SIMULATOR_HOME'];
      else process.env['TELEPRESENCE_SIMULATOR_HOME'] = saved.home;
    }
  });
});

describe('a killed checkout whose lease expired, cleaned up by another checkout', () => {
  it("B's next command stops A's container by label and ends its route; A's release reports what was cleaned", async () => {
    const b = await t.cloneCheckout();
    // A takes over api with the Docker runtime through Telepresence, and is killed once the route serves it.
    const crashed = await crashTakeover(crashSite(t), 'replace', {
      docker: true,
      timeoutMs: 120_000,
      env: { ...route.telepresence.env, PHAROS_CRASH_TTL_MS: '20000' },
    });
    expect(crashed.code, crashed.stderr).toBe(128);
    expect(await route.get('/health')).toMatch(/version=dev\n$/);
    expect(await takeoverContainers(t.repo.dir)).toHaveLength(1);
    const lease = (await t.lease()) as { expires: string; holder: { checkout: string } };
    expect(lease.holder.checkout).toBe(t.repo.dir);
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(lease.expires) - Date.now() + 1500)));

    const cleaned = await takeover(t, 'release', [], b, route.telepresence.env);
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toMatch(
      /^no lease on .*cleaned up: .*detached the Telepresence replacement pharos\/api.*stopped api \(container /,
    );
    expect(await takeoverContainers(t.repo.dir)).toEqual([]);
    // B's clean-up ended with quit: the daemon container A's connect --docker started is gone too.
    const daemon = `tp-${route.telepresence.docker!.context}-pharos-cn`;
    expect((await exec('docker', ['container', 'inspect', daemon])).code).not.toBe(0);
    const sim = route.telepresence.state();
    expect({ replaced: sim.replaced, agents: sim.agents, disrupted: sim.disrupted }).toEqual({
      replaced: {},
      agents: {},
      disrupted: [],
    });
    expect(await route.get('/health')).toBe('served by the cluster\n');
    expect(await t.lease()).toBeUndefined();
    expect((await t.windows()).some(isLeaseShaped)).toBe(false);
    expect(await t.replicas('pharos', 'api')).toBe(1);

    // A's next command says what happened to its lease, once.
    const told = await takeover(t, 'release', [], undefined, route.telepresence.env);
    expect(told.code, told.stderr).toBe(0);
    expect(told.stdout).toContain(`your lease on [pharos] of ${t.name} expired; `);
    expect(told.stdout).toContain(`:${b} cleaned it up at `);
    expect(told.stdout).toMatch(/stopped api \(container .*removed the lease record/);
    const again = await takeover(t, 'release', [], undefined, route.telepresence.env);
    expect(again.stdout).toBe(`no lease on ${t.name}\n`);
  });
});

describe('SIGKILL at each new step boundary, then takeover release', () => {
  // runtime:named is after the runtime's journal line and before `docker run`; runtime:started between run and port.
  // connect: Telepresence's daemon container runs (journaled before), no runtime yet.
  it.each(['connect', 'runtime:named', 'runtime:started', 'runtime', 'handback:detach', 'handback:agents'])(
    'after %s: no container, replacement, agent, window or record is left',
    async (step) => {
      const crashed = await crashTakeover(crashSite(t), step, {
        docker: true,
        timeoutMs: 120_000,
        env: route.telepresence.env,
      });
      expect(crashed.code, crashed.stderr).toBe(128);
      const last = (await entries()).at(-1);
      if (step.startsWith('runtime:')) {
        expect(last).toMatchObject({ step: 'runtime', image: 'api', pending: true });
        // Killed between run and port: the container runs, and carries its lease's labels.
        if (step === 'runtime:started') expect(await takeoverContainers(t.repo.dir)).toHaveLength(1);
      } else expect(last?.step).toBe(step);
      const release = await takeover(t, 'release', [], undefined, route.telepresence.env);
      expect(release.code, release.stderr).toBe(0);
      expect(await takeoverContainers(t.repo.dir)).toEqual([]);
      // The hand-back quit Telepresence: its daemon container is gone too.
      const daemon = `tp-${route.telepresence.docker!.context}-pharos-cn`;
      expect((await exec('docker', ['container', 'inspect', daemon])).code).not.toBe(0);
      const sim = route.telepresence.state();
      expect({ replaced: sim.replaced, agents: sim.agents, disrupted: sim.disrupted }).toEqual({
        replaced: {},
        agents: {},
        disrupted: [],
      });
      expect(await route.get('/health')).toBe('served by the cluster\n');
      expect(await t.lease()).toBeUndefined();
      expect((await t.windows()).some(isLeaseShaped)).toBe(false);
      expect(await t.replicas('pharos', 'api')).toBe(1);
    },
  );
});

describe('the Docker runtime builds only from inside the repository', () => {
  it('a Dockerfile that is a symlink to a file outside the checkout is refused before any lease or build (exit 2)', async () => {
    const dockerfile = join(t.repo.dir, 'services/api/Dockerfile');
    const good = await readFile(dockerfile, 'utf8');
    const outside = join(t.repo.dir, '..', 'outside.Dockerfile');
    await writeFile(outside, `${good}RUN echo built from outside > /outside\n`);
    await rm(dockerfile);
    await symlink(outside, dockerfile);
    try {
      const started = await takeover(t, 'start', ['api', '--no-watch'], undefined, route.telepresence.env);
      expect([started.code, started.stderr]).toEqual([
        2,
        expect.stringContaining(
          'Cannot build image "api" from the working tree: "services/api/Dockerfile" is a symbolic link',
        ),
      ]);
      expect(await t.lease()).toBeUndefined();
      expect(await takeoverContainers(t.repo.dir)).toEqual([]);
    } finally {
      await rm(dockerfile);
      await writeFile(dockerfile, good);
    }
  });
});
