// The SSH runner against a real sshd: the workstation bundles the exact commit, the runner (this machine, reached
// over ssh on a loopback port) checks it out in its own checkout and delivers it to the test dev box, and the
// receipt comes back. Host keys are checked; a dropped connection is retried and the delivery resumes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { spawn } from 'node:child_process';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { gitPort } from '../../scripts/lib/ports/git.ts';
import { readJournal } from '../../scripts/lib/steps/jsonl-journal.ts';
import { readOwnership, writeOwnership } from '../../scripts/lib/ownership/ownership-store.ts';
import { writeHeldLease } from '../support/devbox/held-lease.ts';
import { createBundle } from '../../scripts/lib/runner/send-bundle.ts';
import { runSsh } from '../../scripts/lib/runner/ssh.ts';
import { runnerProfileSchema } from '../../scripts/lib/target/runner-profile.ts';
import { startTestDevbox } from '../support/devbox/test-devbox.ts';
import type { TestDevbox } from '../support/devbox/test-devbox.ts';
import { startTestSshd } from '../support/sshd/test-sshd.ts';
import type { TestSshd } from '../support/sshd/test-sshd.ts';

const TOP = resolve(import.meta.dirname, '../..');
const NODE = join(TOP, 'node_modules/.bin/node');
const REF = { namespace: 'argocd', name: 'pharos-platform-ownership' };

let box: TestDevbox;
let sshd: TestSshd;
let dir = '';
let runnerRoot = '';

/** The runner's own state folder: its target profile (the same dev box, as the runner reaches it). */
async function makeRunnerRoot(path: string): Promise<void> {
  await mkdir(join(path, 'targets'), { recursive: true });
  await cp(join(box.targetsDir, `${box.target}.yaml`), join(path, 'targets', `${box.target}.yaml`));
}

async function viaRunner(
  args: string[],
  env: Record<string, string> = {},
  onStderr?: (text: string) => void,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(
    NODE,
    [
      join(TOP, 'scripts/devbox.ts'),
      ...args,
      '--runner',
      '--target',
      box.target,
      '--targets',
      box.targetsDir,
      '--repo',
      box.repo.dir,
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
    onStderr?.(stderr);
  });
  const code = await new Promise<number>((done) => child.on('close', (c) => done(c ?? 1)));
  return { code, stdout, stderr };
}

async function runnerHead(root: string): Promise<string> {
  return (await exec('git', ['-C', join(root, 'checkout'), 'rev-parse', 'HEAD'])).stdout.toString('utf8').trim();
}

/** The dev box runs `commit`, the workstation's receipt equals the runner's, nothing holds the target. */
async function expectDeliveredThrough(root: string, commit: string): Promise<void> {
  const data = await box.ownershipData();
  expect(JSON.parse(data?.['revision'] ?? '""')).toBe(commit);
  expect(data?.['delivery']).toBeUndefined();
  const local = JSON.parse(
    await readFile(join(box.repo.dir, '.local/metallo', box.target, 'receipt.json'), 'utf8'),
  ) as { commit: string; images: Record<string, { reference: string }> };
  const remote = JSON.parse(
    await readFile(join(root, 'checkout/.local/metallo', box.target, 'receipt.json'), 'utf8'),
  ) as unknown;
  expect(local).toEqual(remote);
  expect(local.commit).toBe(commit);
  expect(Object.fromEntries(Object.entries(local.images).map(([k, v]) => [k, v.reference]))).toEqual(
    JSON.parse(data?.['images'] ?? '{}'),
  );
  expect(await runnerHead(root)).toBe(commit);
}

async function setRunner(fields: Record<string, unknown>): Promise<void> {
  const file = join(box.targetsDir, `${box.target}.yaml`);
  const profile = parseYaml(await readFile(file, 'utf8')) as Record<string, unknown>;
  profile['runner'] = {
    host: '127.0.0.1',
    port: sshd.port,
    user: sshd.user,
    identity: sshd.identity,
    knownHosts: sshd.knownHosts,
    toolkit: TOP,
    root: runnerRoot,
    retries: 3,
    ...fields,
  };
  await writeFile(file, stringify(profile));
}

beforeAll(async () => {
  [box, sshd] = await Promise.all([startTestDevbox(), startTestSshd()]);
  dir = await mkdtemp(join(tmpdir(), 'pharos-runner16-'));
  runnerRoot = join(dir, 'runner');
  await makeRunnerRoot(runnerRoot);
  await setRunner({});
}, 120_000);
afterAll(async () => {
  await Promise.allSettled([box?.stop(), sshd?.stop()]);
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe('the SSH runner (devbox.ts reconcile --runner) against a real sshd', () => {
  it("delivers HEAD: the bundle is checked by commit id, the runner's own checkout runs it, and the same receipt lands here", async () => {
    const head = await box.repo.git('rev-parse', 'HEAD');
    const result = await viaRunner(['reconcile']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`runner: checked out ${head} in ${join(runnerRoot, 'checkout')}`);
    expect(result.stderr).toMatch(/runner: devbox: step=release commit=/);
    await expectDeliveredThrough(runnerRoot, head);
    // The operator's checkout is only read: same HEAD, no ref left behind, and the runner's checkout is another repository.
    expect(await box.repo.git('rev-parse', 'HEAD')).toBe(head);
    expect(await box.repo.git('for-each-ref', 'refs/pharos-runner/')).toBe('');
    expect(
      (await exec('git', ['-C', join(runnerRoot, 'checkout'), 'rev-parse', '--absolute-git-dir'])).stdout
        .toString('utf8')
        .trim(),
    ).toBe(join(runnerRoot, 'checkout/.git'));
    expect(await readdir(join(runnerRoot, 'incoming'))).toEqual([]);
  });

  it('refuses a runner whose host key does not match known_hosts, before sending anything (exit 2)', async () => {
    await setRunner({ knownHosts: sshd.wrongKnownHosts });
    const logBefore = (await sshd.log()).length;
    try {
      const commit = await box.repo.commit('never sent', { 'docs/host-key.md': 'x\n' });
      const result = await viaRunner(['reconcile']);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        `error [host-key]: Cannot list the commits the runner has on runner ${sshd.user}@127.0.0.1:${sshd.port}: its host key does not match "${sshd.wrongKnownHosts}"`,
      );
      expect(
        (await exec('git', ['-C', join(runnerRoot, 'checkout'), 'cat-file', '-e', `${commit}^{commit}`])).code,
      ).not.toBe(0);
      // The client gave up during key exchange: the server never saw it authenticate.
      expect((await sshd.log()).slice(logBefore)).not.toContain('Accepted publickey');
    } finally {
      await setRunner({});
    }
  });

  it('the runner refuses a bundle that does not carry the announced commit', async () => {
    const head = await box.repo.git('rev-parse', 'HEAD');
    const other = await box.repo.git('rev-parse', 'HEAD~1');
    const bundle = await createBundle(gitPort(box.repo.dir), other, []);
    try {
      const runner = runnerProfileSchema.parse({
        host: '127.0.0.1',
        port: sshd.port,
        user: sshd.user,
        identity: sshd.identity,
        knownHosts: sshd.knownHosts,
        toolkit: TOP,
      });
      const result = await runSsh({
        runner,
        remote: [NODE, join(TOP, 'scripts/devbox.ts'), 'runner-receive', '--root', runnerRoot, '--commit', head],
        stdinFile: bundle.file,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `Cannot use the bundle for ${head.slice(0, 12)}: it carries [${other} refs/pharos-runner/${other}], not "${head} refs/pharos-runner/${head}"`,
      );
    } finally {
      await bundle.remove();
    }
  });

  it('a connection dropped mid-delivery is retried, and the delivery on the runner resumes and converges', async () => {
    const commit = await box.repo.commit('compat over a flaky link', {
      'apps/compat/src/build.sh': 'echo "built over ssh $1 $2"\n',
    });
    const journal = join(runnerRoot, 'checkout/.local/metallo', box.target, 'journal.jsonl');
    let dropped = 0;
    const watcher = (async () => {
      for (let i = 0; i < 1200 && dropped === 0; i++) {
        const entries = await readJournal(journal);
        if (entries.some((e) => e['commit'] === commit && e.step === 'push')) dropped = await sshd.dropSessions();
        else await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const result = await viaRunner(['reconcile']);
    await watcher;
    expect(dropped).toBeGreaterThan(0);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/runner: connection lost during reconcile [0-9a-f]{12} .*; retrying 1\/3/);
    await expectDeliveredThrough(runnerRoot, commit);
    const runs = new Set((await readJournal(journal)).filter((e) => e['commit'] === commit).map((e) => e.run));
    expect(runs.size).toBe(2); // the interrupted run, then the one that resumed it
  });

  it('the runner keeps the lease protocol: an unexpired takeover lease refuses the delivery there, and the exit status comes back (3)', async () => {
    const { before: snapshot, lease } = await writeHeldLease(box.kube);
    try {
      await box.repo.commit('refused on the runner', { 'docs/lease.md': 'x\n' });
      const result = await viaRunner(['reconcile']);
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toMatch(
        /runner: devbox reconcile: error \[lease-held\]: Cannot deliver [0-9a-f]{12} to target "[^"]+": a takeover lease of ana-laptop:\/home\/ana\/platform/,
      );
      expect(result.stderr).toMatch(
        /error \[remote-failed\]: Cannot reconcile [0-9a-f]{12} on runner .*: the runner's devbox reconcile exited 3/,
      );
    } finally {
      const after = await readOwnership(box.kube, REF);
      await writeOwnership(box.kube, after, { lease: null });
    }
  });

  it("deploy goes through the runner too: the layers run there, with the runner profile's deploy section (check mode)", async () => {
    const file = join(runnerRoot, 'targets', `${box.target}.yaml`);
    const profile = parseYaml(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(
      join(runnerRoot, 'inventory.ini'),
      '[devbox]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n',
    );
    profile['deploy'] = {
      inventory: join(runnerRoot, 'inventory.ini'),
      layers: ['k3s'],
      vars: { pharos_root: join(runnerRoot, 'host'), k3s_install: false },
    };
    await writeFile(file, stringify(profile));
    // The workstation's profile has no deploy section: on macOS the runner's profile is the one that counts.
    const result = await viaRunner(['deploy', '--check', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      schema: 1,
      command: 'deploy',
      target: box.target,
      check: true,
      layers: [{ layer: 'k3s', summary: 'checked on localhost: 3 would change' }],
    });
    await expect(stat(join(runnerRoot, 'host'))).rejects.toThrow(/ENOENT/);
  });

  it("REMOTE_ROOT reuses another installation's state on the runner, even with a path the remote shell must not interpret", async () => {
    const hostile = join(dir, "existing install's $(touch pwned); `id`");
    await makeRunnerRoot(hostile);
    const head = await box.repo.git('rev-parse', 'HEAD');
    const result = await viaRunner(['reconcile'], { REMOTE_ROOT: hostile });
    expect(result.code, result.stderr).toBe(0);
    await expectDeliveredThrough(hostile, head);
    await expect(stat(join(TOP, 'pwned'))).rejects.toThrow(/ENOENT/);
    await expect(stat(join('/root', 'pwned'))).rejects.toThrow(/ENOENT/);
  });
});
