import { processAlive } from '../../scripts/lib/ports/pid-lock.ts';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { startTestTarget } from '../support/takeover/test-target.ts';
import { DEVBOX_NAMESPACES } from '../support/devbox/devbox-namespaces.ts';
import type { TestTarget } from '../support/takeover/test-target.ts';
import { NODE, startTakeover, stopAllTakeovers, takeover } from '../support/takeover/takeover-cli.ts';
import { isLeaseShaped } from '../../scripts/lib/ownership/index.ts';
import {
  makeTakeoverContext,
  planTakeover,
  resolveWorkloads,
  RUNTIMES,
  startSession,
} from '../../scripts/lib/takeover/index.ts';
import { readReceipt } from '../../scripts/lib/target/receipt.ts';

const TOP = resolve(import.meta.dirname, '../..');
let t: TestTarget;
let other: string;

beforeAll(async () => {
  t = await startTestTarget();
  await appendFile(join(t.repo.dir, 'apps/compat/src/run.sh'), '# local edit\n');
  other = await t.cloneCheckout();
  t.sim.start(50);
});
afterAll(async () => {
  await stopAllTakeovers();
  await t?.stop();
});

const alive = processAlive;

describe('one developer per dev box', () => {
  it('refuses a second checkout and a delivery while a lease is held; release needs --force and says what it breaks', async () => {
    const first = startTakeover(t, ['--renew-every', '1m']);
    await first.waitFor(/holding \[themelio-compat\]/);

    const second = await takeover(t, 'start', ['compat-web'], other);
    expect(second.code).toBe(3);
    expect(second.stderr).toMatch(
      new RegExp(
        `error \\[lease-held\\]: Cannot take over on target "${t.name}": .*:${t.repo.dir.replace(/[/.]/g, '\\$&')} holds a takeover lease on \\[themelio-compat\\]`,
      ),
    );

    const delivery = await exec(
      NODE,
      [
        join(TOP, 'scripts/devbox.ts'),
        'reconcile',
        '--target',
        t.name,
        '--targets',
        t.targetsDir,
        '--repo',
        t.repo.dir,
      ],
      { timeoutMs: 60_000 },
    );
    expect(delivery.code).toBe(3);
    expect(delivery.stderr).toContain('[lease-held]');

    const status = await takeover(t, 'status', ['--json'], other);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).lease).toMatchObject({
      holder: { checkout: t.repo.dir },
      state: 'held',
      applications: ['themelio-compat'],
      expired: false,
    });

    const refused = await takeover(t, 'release', [], other);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('--force hands it back anyway');
    expect((await t.lease())?.['state']).toBe('held');

    first.child.kill('SIGTERM');
    expect(await first.exited, first.stderr()).toBe(0);
    expect(await t.lease()).toBeUndefined();
  });
});

describe('a damaged receipt', () => {
  it('takeover start with a receipt that is not JSON exits 2 naming the file, before any lease exists', async () => {
    const receipt = join(other, '.local', 'metallo', t.name, 'receipt.json');
    const good = await readFile(receipt);
    await writeFile(receipt, '{"schema": 1, "commit": ');
    try {
      const started = await takeover(t, 'start', ['compat-web'], other);
      expect([started.code, started.stderr]).toEqual([
        2,
        expect.stringContaining(`Cannot read receipt "${receipt}": not JSON`),
      ]);
      expect(await t.lease()).toBeUndefined();
    } finally {
      await writeFile(receipt, good);
    }
  });
});

describe('expiry with no command run', () => {
  it('Argo CD restores the workloads from the receipt when a frozen holder lets the lease expire; the same checkout then gets a new lease', async () => {
    const frozen = startTakeover(t, ['--ttl', '2m', '--renew-every', '1m']);
    await frozen.waitFor(/holding \[themelio-compat\]/);
    const old = (await t.lease()) as { acquired: string; expires: string };
    expect(await t.replicas('themelio-compat', 'compat-web')).toBe(0);
    frozen.child.kill('SIGSTOP'); // the laptop lid closes: no renewal, no hand-back

    t.clock.advance(3 * 60_000); // past `expires`, for Argo CD
    await expect.poll(() => t.replicas('themelio-compat', 'compat-web'), { timeout: 15_000 }).toBe(2);
    const web = (await t.kube.get('Deployment', 'themelio-compat', 'compat-web')) as any;
    expect(web.spec.template.spec.containers[0].image).toBe(t.receipt.images['compat-web']?.reference);
    expect(t.sim.events.some((e) => e.application === 'themelio-compat' && e.message.startsWith('Self-healing'))).toBe(
      true,
    );
    expect((await t.lease())?.['acquired']).toBe(old.acquired); // nothing ran yet: the record is still there

    // The same checkout's next command removes the expired lease (record and window) and takes a new one.
    const ctx = await makeTakeoverContext({
      profile: t.profile,
      kube: t.kube,
      checkout: t.repo.dir,
      clock: t.clock,
      log: () => {},
      pollMs: 20,
    });
    const receipt = (await readReceipt(ctx.paths.receipt))!;
    const { catalogue } = await planTakeover({ checkout: t.repo.dir, receipt, runtimes: Object.keys(RUNTIMES) });
    const session = await startSession(
      ctx,
      receipt,
      catalogue,
      await resolveWorkloads(t.kube, 'argocd', catalogue, receipt, ['compat-web']),
    );
    const fresh = (await t.lease()) as { acquired: string; state: string };
    expect(fresh.acquired).not.toBe(old.acquired);
    expect(fresh.state).toBe('held');
    expect((await t.windows()).filter(isLeaseShaped)).toHaveLength(1);
    await session.handBack();

    // The frozen process wakes up to a lease that is gone: it stops its runtime and touches nothing else.
    frozen.child.kill('SIGCONT');
    frozen.child.kill('SIGTERM');
    await frozen.exited;
    const pids = frozen.stderr().match(/step=runtime image=compat-web pid=(\d+)/);
    expect(alive(Number(pids?.[1]))).toBe(false);
    expect(await t.lease()).toBeUndefined();
    expect((await t.windows()).some(isLeaseShaped)).toBe(false);
    expect(await t.replicas('themelio-compat', 'compat-web')).toBe(2);
  });
});

describe('usage', () => {
  it('documents every command and its exit statuses, and rejects bad input with exit 2 before touching the cluster', async () => {
    const help = await exec(NODE, [join(TOP, 'scripts/takeover.ts'), '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.toString()).toMatch(/plan[\s\S]*start[\s\S]*status[\s\S]*release[\s\S]*3 refused/);
    const startHelp = await exec(NODE, [join(TOP, 'scripts/takeover.ts'), 'start', '--help']);
    expect(startHelp.stdout.toString()).toContain('--renew-every');
    const badTtl = await takeover(t, 'start', ['--ttl', '1d']);
    expect(badTtl.code).toBe(2);
    expect(badTtl.stderr).toContain('Cannot use --ttl "1d"');
    const unknown = await exec(NODE, [join(TOP, 'scripts/takeover.ts'), 'grab']);
    expect(unknown.code).toBe(2);
    const notCandidate = await takeover(t, 'start', ['worker']);
    expect(notCandidate.code).toBe(2);
    expect(notCandidate.stderr).toContain('Cannot take over image "worker"');
    expect(await t.lease()).toBeUndefined();
  });
});

describe('the project-writer fence', () => {
  it('refuses to take over as anyone but the fence administrator before writing a record or a window, and proceeds as it', async () => {
    const { parseAllDocuments } = await import('yaml');
    const { readFile } = await import('node:fs/promises');
    const docs = parseAllDocuments(
      await readFile(join(TOP, 'gitops/manifests/bootstrap/project-writer.yaml'), 'utf8'),
    ).map((d) => d.toJS());
    await t.kube.create(
      'ConfigMap',
      'argocd',
      docs.find((d) => d.kind === 'ConfigMap'),
    );
    const kubeconfig = t.profile.kubeconfigPath as string;
    try {
      const controller = 'system:serviceaccount:argocd:argocd-application-controller';
      t.server.addUser('controller-token', controller);
      // Its ClusterRole reads everything; Roles in the dev box's namespaces stand in for it here.
      for (const ns of DEVBOX_NAMESPACES)
        t.server.grant(ns, controller, [{ apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] }]);
      await t.server.writeKubeconfig(kubeconfig, 'default', 'controller-token');
      const windows = JSON.stringify(await t.windows());
      const refused = await takeover(t, 'start', ['compat-web']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('error [project-writer]: Cannot take over on target');
      expect(refused.stderr).toContain(
        'authenticates as "system:serviceaccount:argocd:argocd-application-controller", but the project-writer fence (ConfigMap "argocd/pharos-project-writer") lets only "system:admin"',
      );
      expect(await t.lease()).toBeUndefined();
      expect(JSON.stringify(await t.windows())).toBe(windows);

      await t.server.writeKubeconfig(kubeconfig, 'default');
      const admin = startTakeover(t, ['--renew-every', '1m']);
      await admin.waitFor(/holding \[themelio-compat\]/);
      expect(admin.stderr()).toContain('writing sync windows as the bootstrap administrator "system:admin"');
      admin.child.kill('SIGTERM');
      expect(await admin.exited, admin.stderr()).toBe(0);
      expect(await t.lease()).toBeUndefined();
    } finally {
      await t.server.writeKubeconfig(kubeconfig, 'default');
      await t.kube.delete('ConfigMap', 'argocd', 'pharos-project-writer');
    }
  });
});
