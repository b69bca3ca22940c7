// Attacks on a host by someone with partial access, against real ticks (git, Docker Engine, registry, Compose): each is
// refused with its documented exit status, applied.json and the running containers unchanged, the metrics written.
import { randomBytes } from 'node:crypto';
import { access, chmod, chown, readFile, rename, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireFileLock } from '../../scripts/lib/ports/file-lock.ts';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { buildFailingImage } from '../support/host/example-images.ts';
import { makeHostLab } from '../support/host/host-lab.ts';
import type { Host, HostLab } from '../support/host/host-lab.ts';

let lab: HostLab;
let host: Host;
let v1: Record<string, string>;
let before: Record<string, { id: string; image: string }>;
let record: string | undefined;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );
const step = (journal: readonly string[], name: string) => journal.find((l) => l.startsWith(`${name} `)) ?? '';

/** Commits `files` on main, tags the commit, publishes its lock (release key), promotes it; returns the commit. */
async function release(
  tag: string,
  images: Record<string, string> = v1,
  files: Record<string, string> = {},
): Promise<string> {
  const commit = await lab.commit({ ...files, RELEASE: `${tag}\n` }, tag);
  await lab.tag(tag, commit);
  await lab.publishLock(tag, commit, images);
  await lab.promote('staging', ['--release', tag]);
  return commit;
}

/** The host applied it: what runs and what is recorded become the new "before". */
async function applied(tick: Awaited<ReturnType<Host['tick']>>): Promise<void> {
  expect([tick.code, tick.result], tick.stderr).toEqual([0, 'applied']);
  before = await host.running();
  record = await host.appliedBytes();
}

async function expectIntact(success: 0 | 1 = 0): Promise<void> {
  expect(await host.running()).toEqual(before);
  expect(await host.appliedBytes()).toBe(record);
  expect(await host.metrics()).toContain(`hephaestus_deploy_reconcile_success ${success}\n`);
}

beforeAll(async () => {
  lab = await makeHostLab();
  const commit = await lab.repo.git(['rev-parse', 'HEAD']);
  await lab.tag('v1.0.0', commit);
  v1 = await lab.build('t1');
  await lab.publishLock('v1.0.0', commit, v1);
  await lab.promote('staging', ['--release', 'v1.0.0']);
  host = await lab.host('staging');
  await applied(await host.tick());
});
afterAll(async () => {
  if (lab !== undefined) await exec('docker', ['image', 'rm', `${lab.registry.host}/pharos/api:broken`]);
  await lab?.cleanup();
});

describe('trust per role: channels only from promotion, locks only from release', () => {
  it('refuses a release lock signed with the promotion key, before anything is written under the root', async () => {
    const commit = await lab.commit({ RELEASE: 'v1.1.0\n' }, 'v1.1.0');
    await lab.tag('v1.1.0', commit);
    await lab.publishLock('v1.1.0', commit, v1, { signer: 'promote' });
    await lab.promote('staging', ['--release', 'v1.1.0']);
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
    expect(step(tick.journal, 'prepare')).toMatch(
      /status=failed .*\[signature\].*release-v1\.1\.0\.json.*not a trusted key/,
    );
    expect(await exists(join(host.root, 'releases', 'v1.1.0'))).toBe(false);
    expect(await exists(join(host.root, 'release-locks', 'v1.1.0.env'))).toBe(false);
    await expectIntact();
  });

  it('refuses a channel signed with the release key', async () => {
    await lab.signChannel('staging', { release: 'v1.1.0', allowRollback: false }, { signer: 'release' });
    const tick = await host.tick();
    expect([tick.code, tick.result, tick.reason], tick.stderr).toEqual([1, 'refused', 'signature']);
    await expectIntact();
  });

  it('warns in the journal when one shared key list (HEPHAESTUS_TRUSTED_KEYS) is trusted for both roles', async () => {
    const tick = await host.tick({
      HEPHAESTUS_PROMOTE_KEYS: '',
      HEPHAESTUS_RELEASE_KEYS: '',
      HEPHAESTUS_TRUSTED_KEYS: lab.pub,
    });
    expect(step(tick.journal, 'trust')).toMatch(
      /warning=.*HEPHAESTUS_TRUSTED_KEYS trusts the same keys for channels and release locks/,
    );
  });
});

describe('verify before touching disk', () => {
  // promote.ts refuses to replace the release-signed channel above: the promotion key signs the channel again first.
  beforeAll(() => lab.signChannel('staging', { release: 'v1.0.0', allowRollback: false }));

  it('a tag moved for one tick leaves nothing under the root, and the next tick applies the signed commit', async () => {
    const signed = await release('v1.2.0');
    // Someone with push access to tags (not to the signing keys) points the tag at a commit that is on no branch.
    await writeFile(
      join(lab.repo.work, 'docker', 'compose.app.yaml'),
      'services:\n  api:\n    image: busybox\n    volumes: ["/:/host"]\n',
    );
    await lab.repo.git(['commit', '--quiet', '--all', '-m', 'evil']);
    const evil = await lab.repo.git(['rev-parse', 'HEAD']);
    await lab.repo.git(['reset', '--quiet', '--hard', 'HEAD^']);
    await lab.repo.git(['push', '--quiet', '--force', 'origin', `${evil}:refs/tags/v1.2.0`]);
    const refused = await host.tick();
    expect([refused.code, refused.result], refused.stderr).toEqual([1, 'failed']);
    expect(step(refused.journal, 'prepare')).toMatch(
      /status=failed .*\[match\].*is not the commit of tag \\"v1\.2\.0\\"/,
    );
    expect(await exists(join(host.root, 'releases', 'v1.2.0'))).toBe(false);
    expect(await exists(join(host.root, 'release-locks', 'v1.2.0.env'))).toBe(false);
    await expectIntact();

    await lab.repo.git(['push', '--quiet', '--force', 'origin', `${signed}:refs/tags/v1.2.0`]);
    const tick = await host.tick();
    await applied(tick);
    expect(step(tick.journal, 'prepare')).toMatch(/worktree=created/);
    expect(await host.applied()).toMatchObject({ release: 'v1.2.0', commit: signed });
  });

  it('a release worktree left at another commit is moved to quarantine/ and made again at the verified commit', async () => {
    const commit = await lab.commit({ RELEASE: 'v1.3.0\n' }, 'v1.3.0');
    const stale = (await lab.repo.git(['rev-parse', 'v1.0.0^{commit}'])).trim();
    await exec('git', [
      '-C',
      join(host.root, 'cache', 'deploy-state.git'),
      'worktree',
      'add',
      '--detach',
      join(host.root, 'releases', 'v1.3.0'),
      stale,
    ]);
    await writeFile(join(host.root, 'releases', 'v1.3.0', 'left-behind'), 'x\n');
    await lab.tag('v1.3.0', commit);
    await lab.publishLock('v1.3.0', commit, v1);
    await lab.promote('staging', ['--release', 'v1.3.0']);
    const tick = await host.tick();
    await applied(tick);
    expect(step(tick.journal, 'prepare')).toMatch(/worktree=recreated/);
    const head = await exec('git', ['-C', join(host.root, 'releases', 'v1.3.0'), 'rev-parse', 'HEAD']);
    expect(head.stdout.toString().trim()).toBe(commit);
    const quarantined = (await exec('sh', ['-c', `ls ${join(host.root, 'quarantine')}`])).stdout.toString();
    expect(quarantined).toMatch(/^v1\.3\.0-/);
  });

  it('a compose file that is a symlink out of the release is refused before Compose reads it', async () => {
    const outside = join(lab.repo.root, 'outside.yaml');
    await writeFile(outside, 'services:\n  api:\n    image: ${HEPHAESTUS_IMAGE_API}\n    volumes: ["/:/host"]\n');
    await lab.repo.git(['rm', '--quiet', 'docker/compose.app.yaml']);
    await symlink(outside, join(lab.repo.work, 'docker', 'compose.app.yaml'));
    await lab.repo.git(['add', 'docker/compose.app.yaml']);
    const commit = await lab.commit({}, 'v1.4.0 with a symlinked stack');
    await lab.tag('v1.4.0', commit);
    await lab.publishLock('v1.4.0', commit, v1);
    await lab.promote('staging', ['--release', 'v1.4.0']);
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
    expect(step(tick.journal, 'render')).toMatch(/status=failed .*docker\/compose\.app\.yaml.*is a symlink/);
    expect(step(tick.journal, 'migrate')).toBe('');
    await expectIntact();
    await lab.repo.git(['checkout', 'v1.3.0', '--', 'docker/compose.app.yaml']);
  });

  it('HEPHAESTUS_STACKS naming a path is a configuration error (exit 2)', async () => {
    const tick = await host.tick({ HEPHAESTUS_STACKS: 'core ../../etc/app' });
    expect(tick.code).toBe(2);
    expect(tick.stderr).toMatch(/HEPHAESTUS_STACKS: expected stack names/);
  });
});

describe('a failed up', () => {
  it('brings the previous release back (its images and configuration), records nothing, and the next good release applies', async () => {
    const broken = await buildFailingImage(lab.registry, 'pharos/api', 'broken', v1.HEPHAESTUS_IMAGE_API ?? '', 1);
    await lab.repo.git(['add', 'docker/compose.app.yaml']);
    await release('v1.5.0', { ...v1, HEPHAESTUS_IMAGE_API: broken });
    const tick = await host.tick({ HEPHAESTUS_WAIT_TIMEOUT: '8' });
    expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
    expect(step(tick.journal, 'up')).toMatch(/status=failed .*api.*restored v1\.3\.0/);
    expect(step(tick.journal, 'restore')).toMatch(/status=ok release=v1\.3\.0/);
    const images = Object.fromEntries(Object.entries(await host.running()).map(([service, c]) => [service, c.image]));
    expect(images).toEqual(Object.fromEntries(Object.entries(before).map(([service, c]) => [service, c.image])));
    expect((await host.containers()).find((c) => c.service === 'api')?.health).toBe('healthy');
    expect(await host.appliedBytes()).toBe(record);
    expect(await host.metrics()).toContain('hephaestus_deploy_reconcile_success 0\n');

    const good = await release('v1.6.0');
    const next = await host.tick();
    await applied(next);
    expect(await host.applied()).toMatchObject({ release: 'v1.6.0', commit: good, previous: { release: 'v1.3.0' } });
  });
});

describe('one tick at a time', () => {
  it('a tick that finds the lock held exits 75 at once and touches nothing, not even the metrics', async () => {
    const lock = await acquireFileLock(join(host.root, 'tick.lock'));
    if (!lock.held) throw new Error('the test could not take the tick lock');
    const metrics = await host.metrics();
    try {
      const started = Date.now();
      const tick = await host.tick();
      expect([tick.code, tick.result, tick.reason], tick.stderr).toEqual([75, 'busy', 'tick-running']);
      expect(tick.message).toContain(`pid ${process.pid}`);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(await host.metrics()).toBe(metrics);
      expect(await host.appliedBytes()).toBe(record);
    } finally {
      await lock.release();
    }
  });

  it('two ticks started together: one applies, the other exits 75, and the migration runs once', async () => {
    const commit = await release('v1.7.0');
    const ticks = await Promise.all([host.tick(), host.tick()]);
    expect(
      ticks.map((t) => t.code).sort((a, b) => a - b),
      ticks.map((t) => t.stderr).join('\n'),
    ).toEqual([0, 75]);
    const migrations = (await host.events()).filter(
      (e) => e.service === 'migrate' && e.event === 'migrate' && e.version === commit,
    );
    expect(migrations).toHaveLength(1);
    before = await host.running();
    record = await host.appliedBytes();
  });
});

describe('an untrusted state folder is refused (exit 2) and left as it is', () => {
  it('a group- or world-writable HEPHAESTUS_ROOT', async () => {
    const metrics = await host.metrics();
    await chmod(host.root, 0o777);
    try {
      const tick = await host.tick();
      expect(tick.code).toBe(2);
      expect(tick.stderr).toMatch(/Cannot trust ".*host-staging": mode 0777 lets every user write it/);
      expect(await host.metrics()).toBe(metrics);
      expect(await host.appliedBytes()).toBe(record);
    } finally {
      await chmod(host.root, 0o750);
    }
  });

  it('a root or applied.json owned by another user', async () => {
    await chown(host.root, 4242, 4242);
    try {
      expect((await host.tick()).stderr).toMatch(/owned by uid 4242/);
    } finally {
      await chown(host.root, 0, 0);
    }
    const file = join(host.root, 'applied.json');
    await chown(file, 4242, 0);
    try {
      const tick = await host.tick();
      expect(tick.code).toBe(2);
      expect(tick.stderr).toMatch(/applied\.json": owned by uid 4242/);
    } finally {
      await chown(file, 0, 0);
    }
  });

  it('an applied.json replaced by a symlink', async () => {
    const file = join(host.root, 'applied.json');
    await rename(file, `${file}.real`);
    await symlink(`${file}.real`, file);
    try {
      const tick = await host.tick();
      expect(tick.code).toBe(2);
      expect(tick.stderr).toMatch(/applied\.json": it is a symlink/);
    } finally {
      await rename(`${file}.real`, file);
    }
    expect((await stat(file)).isFile()).toBe(true);
  });
});

describe('a bounded network', () => {
  let server: Server;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    server = createServer((socket) => sockets.push(socket)); // accepts, never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('a server that never answers: the fetch stops at HEPHAESTUS_FETCH_TIMEOUT, exit 1, metrics written', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/platform.git`;
    const started = Date.now();
    const tick = await host.tick({ HEPHAESTUS_REPOSITORY: url, HEPHAESTUS_FETCH_TIMEOUT: '2' });
    expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(step(tick.journal, 'decide')).toMatch(/status=failed .*\[fetch-timeout\].*within 2 s/);
    await expectIntact();
  });

  it('a fetch larger than HEPHAESTUS_FETCH_MAX_MIB is undone: no new pack, every ref as before, the cache still whole', async () => {
    const cache = join(host.root, 'cache', 'deploy-state.git');
    const refs = async () =>
      (await exec('git', ['-C', cache, 'for-each-ref', '--format=%(objectname) %(refname)'])).stdout.toString();
    const packs = async () => (await exec('sh', ['-c', `ls ${join(cache, 'objects', 'pack')}`])).stdout.toString();
    const [refsBefore, packsBefore] = [await refs(), await packs()];
    await lab.commit({ 'assets/big.txt': randomBytes(3 * 1024 * 1024).toString('base64') }, 'a large file');
    const tick = await host.tick({ HEPHAESTUS_FETCH_MAX_MIB: '1' });
    expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
    expect(step(tick.journal, 'decide')).toMatch(/status=failed .*\[fetch-too-large\].*more than 1 MiB/);
    expect(await refs()).toBe(refsBefore);
    expect(await packs()).toBe(packsBefore);
    expect((await exec('git', ['-C', cache, 'fsck', '--connectivity-only'])).code).toBe(0);
    await expectIntact();
  });
});

describe('the pull-deployment document where the host used to disagree', () => {
  it('a signed rollback request does not permit a major release downgrade: exit 3, nothing applied', async () => {
    await lab.signChannel('staging', { release: 'v0.9.0', allowRollback: true });
    const tick = await host.tick();
    expect([tick.code, tick.result, tick.reason], tick.stderr).toEqual([3, 'refused', 'major-downgrade']);
    await expectIntact(0);
  });

  it('a commit that does not descend from the running release commit needs allowRollback', async () => {
    const base = (await lab.repo.git(['rev-parse', 'v1.0.0^{commit}'])).trim();
    const tree = (await lab.repo.git(['rev-parse', `${base}^{tree}`])).trim();
    const side = (await lab.repo.git(['commit-tree', tree, '-p', base, '-m', 'another line'])).trim();
    await lab.repo.tag('side-line', side);
    await lab.signChannel('staging', { commit: side, images: v1, refreshDatabaseImage: false, allowRollback: false });
    const tick = await host.tick();
    expect([tick.code, tick.result, tick.reason], tick.stderr).toEqual([1, 'refused', 'rollback']);
    expect(tick.message).toMatch(/does not descend from the running/);
    await expectIntact(0);
  });

  it('an unchanged channel does not advance hephaestus_deploy_last_success_timestamp_seconds', async () => {
    await lab.promote('staging', ['--release', 'v1.7.0']);
    await applied(await host.tick());
    const last = /hephaestus_deploy_last_success_timestamp_seconds (\d+)/.exec(await host.metrics())?.[1];
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const noop = await host.tick({ HEPHAESTUS_NOW: later });
    expect([noop.code, noop.result], noop.stderr).toEqual([0, 'noop']);
    const metrics = await host.metrics();
    expect(metrics).toContain(`hephaestus_deploy_last_success_timestamp_seconds ${last}\n`);
    expect(metrics).toContain(
      `hephaestus_deploy_reconcile_timestamp_seconds ${Math.floor(Date.parse(later) / 1000)}\n`,
    );
  });
});

describe('worktrees rebuilt at the commit the host accepted', () => {
  const head = async (dir: string) => (await exec('git', ['-C', dir, 'rev-parse', 'HEAD'])).stdout.toString().trim();

  it("a deleted worktree of the running release is rebuilt before any other action, at applied.json's commit", async () => {
    const running = await host.applied();
    const dir = join(host.root, 'releases', String(running?.release));
    await exec('rm', ['-rf', dir]);
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([0, 'noop']);
    expect(tick.journal.map((l) => l.split(' ')[0]).slice(0, 2)).toEqual(['read', 'rebuild']);
    expect(step(tick.journal, 'rebuild')).toMatch(new RegExp(`status=ok .*rebuilt=${running?.release}`));
    expect(await head(dir)).toBe(running?.commit);
  });

  it('a rollback to a pruned release whose tag moved: rebuilt at the commit the host accepted, not the tag', async () => {
    const accepted = (await lab.repo.git(['rev-parse', 'v1.0.0^{commit}'])).trim();
    expect(await exists(join(host.root, 'releases', 'v1.0.0'))).toBe(false);
    const side = (await lab.repo.git(['rev-parse', 'side-line^{commit}'])).trim();
    await lab.repo.git(['push', '--quiet', '--force', 'origin', `${side}:refs/tags/v1.0.0`]);
    await lab.promote('staging', ['--release', 'v1.0.0', '--allow-rollback']);
    const tick = await host.tick();
    await applied(tick);
    expect(step(tick.journal, 'prepare')).toMatch(new RegExp(`commit=${accepted} worktree=created`));
    expect(await host.applied()).toMatchObject({ release: 'v1.0.0', commit: accepted });
    expect(await head(join(host.root, 'releases', 'v1.0.0'))).toBe(accepted);
  });
});

describe('the lock file itself', () => {
  it('is 0600 and holds the pid of the last holder only as information', async () => {
    const info = await stat(join(host.root, 'tick.lock'));
    expect(info.mode & 0o777).toBe(0o600);
    expect((await readFile(join(host.root, 'tick.lock'), 'utf8')).trim()).toMatch(/^\d+$/);
  });
});
