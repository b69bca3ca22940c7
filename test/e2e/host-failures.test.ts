// Each failure rule of a tick, on a host running v1.0.0: the previous release keeps running, applied.json is unchanged,
// the metrics say failure, and the exit status is the spec's.
import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { buildFailingImage } from '../support/host/example-images.ts';
import { makeHostLab } from '../support/host/host-lab.ts';
import type { Host, HostLab } from '../support/host/host-lab.ts';

let lab: HostLab;
let host: Host;
let v1: Record<string, string>;
let before: Record<string, { id: string; image: string }>;
let record: string | undefined;

/** Tags a new commit (with `files` changed) as `tag`, publishes its lock with `images`, promotes it. */
async function release(
  tag: string,
  images: Record<string, string>,
  files: Record<string, string> = {},
): Promise<string> {
  const commit = await lab.commit({ ...files, RELEASE: `${tag}\n` }, tag);
  await lab.tag(tag, commit);
  await lab.publishLock(tag, commit, images);
  await lab.promote('staging', ['--release', tag]);
  return commit;
}

async function expectPreviousIntact(): Promise<void> {
  expect(await host.running()).toEqual(before);
  expect(await host.appliedBytes()).toBe(record);
  expect(await host.metrics()).toContain('hephaestus_deploy_reconcile_success 0\n');
  expect(await host.metrics()).toContain('release="v1.0.0"');
}

beforeAll(async () => {
  lab = await makeHostLab();
  const commit = await lab.repo.git(['rev-parse', 'HEAD']);
  await lab.tag('v1.0.0', commit);
  v1 = await lab.build('f1');
  await lab.publishLock('v1.0.0', commit, v1);
  await lab.promote('staging', ['--release', 'v1.0.0']);
  host = await lab.host('staging');
  const first = await host.tick();
  if (first.code !== 0) throw new Error(`first install failed: ${first.stderr}`);
  before = await host.running();
  record = await host.appliedBytes();
});
afterAll(async () => {
  if (lab !== undefined) await exec('docker', ['image', 'rm', `${lab.registry.host}/pharos/migrate:broken`]);
  await lab?.cleanup();
});

describe('a failed tick leaves the last good release running', () => {
  it('migration fails: nothing is stopped, applied or recorded; exit 1', async () => {
    const failing = await buildFailingImage(
      lab.registry,
      'pharos/migrate',
      'broken',
      v1.HEPHAESTUS_IMAGE_MIGRATE ?? '',
      3,
    );
    await release('v2.0.0', { ...v1, HEPHAESTUS_IMAGE_MIGRATE: failing });
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
    expect(tick.journal.find((l) => l.startsWith('migrate'))).toMatch(/status=failed .*migration-failed.*exited 3/);
    expect(tick.journal.some((l) => l.startsWith('stop-worker') || l.startsWith('up'))).toBe(false);
    await expectPreviousIntact();
    expect((await host.events()).filter((e) => e.event === 'stop')).toEqual([]);
  });

  it('a SQL migration that fails: psql stops at the error, its transaction rolls back (nothing of it applied), the tick fails and v1.0.0 keeps serving', async () => {
    const applied = await host.psql('SELECT count(*) FROM schema_migrations');
    // A first statement that would succeed, then one that fails: the whole file must roll back together.
    const broken = {
      'services/worker/migrations/0003_half.sql':
        'CREATE TABLE half_applied (id integer);\nSELECT no_such_function();\n',
    };
    await lab.commit(broken, 'a broken migration');
    const built = await lab.build('broken-sql', { context: lab.repo.work, only: ['HEPHAESTUS_IMAGE_MIGRATE'] });
    await release('v2.0.1', { ...v1, ...built });
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
    expect(tick.message).toMatch(
      /migration-failed.*core\/migrate exited 1: .*migrate: 0003_half failed and was rolled back \(nothing of it applied; 0 applied before it\): \/app\/migrations\/0003_half\.sql:2: ERROR: +function no_such_function\(\) does not exist/,
    );
    expect(await host.psql("SELECT to_regclass('public.half_applied') IS NULL")).toBe('t');
    expect(await host.psql('SELECT count(*) FROM schema_migrations')).toBe(applied);
    await expectPreviousIntact();
    await lab.commit({ 'services/worker/migrations/0003_half.sql': null }, 'drop the broken migration');
  });

  it('a pull fails: exit 1, nothing stopped', async () => {
    const missing = `${lab.registry.host}/pharos/api@sha256:${randomBytes(32).toString('hex')}`;
    await release('v2.1.0', { ...v1, HEPHAESTUS_IMAGE_API: missing });
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
    expect(tick.journal.find((l) => l.startsWith('pull'))).toMatch(/status=failed .*pull-failed.*Cannot pull/);
    await expectPreviousIntact();
  });

  it('a worktree with a modified tracked file is refused: exit 3 (operator action)', async () => {
    const file = join(host.root, 'releases', 'v2.1.0', 'docker', 'compose.app.yaml');
    await writeFile(file, `${await readFile(file, 'utf8')}\n# edited on the host\n`);
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([3, 'failed']);
    expect(tick.journal.find((l) => l.startsWith('prepare'))).toMatch(
      /status=failed .*worktree-modified.*docker\/compose\.app\.yaml/,
    );
    await expectPreviousIntact();
  });

  it('the worker stop fails: the migration ran, nothing new starts; exit 1', async () => {
    await release('v2.2.0', v1);
    const tick = await host.tick({
      HEPHAESTUS_COMPOSE: join(import.meta.dirname, '..', 'support', 'host', 'compose-failing-stop.sh'),
    });
    expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
    expect(tick.journal.find((l) => l.startsWith('stop-worker'))).toMatch(
      /status=failed .*worker-stop-failed.*injected failure/,
    );
    await expectPreviousIntact();
  });

  it('the running worker cannot be identified (its retained lock is gone): refused before the pull and the migration; exit 3', async () => {
    const lock = join(host.root, 'release-locks', 'v1.0.0.env');
    const saved = await readFile(lock);
    await rm(lock);
    try {
      const seen = (await host.events()).length;
      const tick = await host.tick();
      expect([tick.code, tick.result], tick.stderr).toEqual([3, 'failed']);
      expect(tick.journal.find((l) => l.startsWith('identify-worker'))).toMatch(/status=failed .*worker-unknown/);
      expect(tick.journal.filter((l) => /^(pull|migrate|stop-worker|up) /.test(l))).toEqual([]);
      expect((await host.events()).slice(seen).filter((e) => e.service === 'migrate')).toEqual([]);
      await expectPreviousIntact();
    } finally {
      await writeFile(lock, saved, { mode: 0o600 });
    }
  });

  it('a retained lock that names another commit than applied.json does not identify the worker; exit 3 before the pull', async () => {
    const lock = join(host.root, 'release-locks', 'v1.0.0.env');
    const saved = await readFile(lock, 'utf8');
    await writeFile(lock, saved.replace(/^HEPHAESTUS_COMMIT=.*$/m, `HEPHAESTUS_COMMIT=${'0'.repeat(40)}`), {
      mode: 0o600,
    });
    try {
      const tick = await host.tick();
      expect([tick.code, tick.result], tick.stderr).toEqual([3, 'failed']);
      expect(tick.journal.find((l) => l.startsWith('identify-worker'))).toMatch(
        /status=failed .*worker-unknown.*names commit 0{40}/,
      );
      expect(tick.journal.filter((l) => /^(pull|migrate) /.test(l))).toEqual([]);
      await expectPreviousIntact();
    } finally {
      await writeFile(lock, saved, { mode: 0o600 });
    }
  });

  it('a service image that is not in the lock is refused before anything runs; exit 1', async () => {
    const compose = await readFile(join(lab.repo.work, 'docker', 'compose.app.yaml'), 'utf8');
    const extra = compose.replace(/^services:\n/m, 'services:\n  extra:\n    image: \${HEPHAESTUS_IMAGE_EXTRA}\n');
    await release('v2.3.0', v1, { 'docker/compose.app.yaml': extra });
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
    expect(tick.journal.find((l) => l.startsWith('render'))).toMatch(
      /status=failed .*binding.*HEPHAESTUS_IMAGE_EXTRA.*not in the lock/,
    );
    await expectPreviousIntact();
  });

  it('a tag instead of a digest is refused; exit 1', async () => {
    const compose = await readFile(join(lab.repo.work, 'docker', 'compose.app.yaml'), 'utf8');
    const tagged = compose.replace('image: ${HEPHAESTUS_IMAGE_API}', `image: ${lab.registry.host}/pharos/api:f1`);
    await release('v2.4.0', v1, { 'docker/compose.app.yaml': tagged });
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
    expect(tick.journal.find((l) => l.startsWith('render'))).toMatch(
      /status=failed .*binding.*services\.api\.image.*pharos\/api:f1/,
    );
    await expectPreviousIntact();
  });

  it('core.env without the database password: the render names the setting, nothing runs; exit 1', async () => {
    const env = join(host.etc, 'core.env');
    const saved = await readFile(env, 'utf8');
    await writeFile(env, saved.replace(/^PHAROS_DATABASE_PASSWORD=.*\n/m, ''), { mode: 0o600 });
    try {
      await release('v2.4.1', v1);
      const tick = await host.tick();
      expect([tick.code, tick.result], tick.stderr).toEqual([1, 'failed']);
      // The app stack still names the tag of the test before: of two failing stacks, the first in HEPHAESTUS_STACKS
      // order is reported, whichever Compose answers first.
      expect(tick.journal.find((l) => l.startsWith('render'))).toMatch(
        /status=failed .*set PHAROS_DATABASE_PASSWORD in the core stack env file/,
      );
      await expectPreviousIntact();
    } finally {
      await writeFile(env, saved, { mode: 0o600 });
    }
  });

  it('after the failures, a good release applies and the failed attempt is cleared', async () => {
    const compose = await readFile(join(lab.repo.work, 'docker', 'compose.app.yaml'), 'utf8');
    await release('v2.5.0', v1, {
      'docker/compose.app.yaml': compose
        .replace(`image: ${lab.registry.host}/pharos/api:f1`, 'image: ${HEPHAESTUS_IMAGE_API}')
        .replace(/\n {2}extra:\n.*\n/, '\n'),
    });
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([0, 'applied']);
    expect(await host.applied()).toMatchObject({ release: 'v2.5.0', previous: { release: 'v1.0.0' } });
    expect(await host.metrics()).toContain('hephaestus_deploy_reconcile_success 1\n');
    await expect(readFile(join(host.root, 'failed-attempt.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a seed applied.json (a release, no commit) is never completed from the tag: exit 3 and tooling pending until the running release is promoted again', async () => {
    const current = await host.applied();
    await writeFile(
      join(host.root, 'applied.json'),
      JSON.stringify({
        release: current?.release,
        channelCommit: current?.channelCommit,
        appliedAt: current?.appliedAt,
      }),
    );
    const legacy = await host.appliedBytes();
    const running = await host.running();
    const commit = await release('v2.6.0', v1);
    const refused = await host.tick();
    expect([refused.code, refused.result], refused.stderr).toEqual([3, 'failed']);
    expect(refused.journal.find((l) => l.startsWith('identify-worker'))).toMatch(
      /status=failed .*worker-unknown.*without its commit; promote v2\.5\.0 again/,
    );
    expect(refused.journal.filter((l) => /^(pull|migrate) /.test(l))).toEqual([]);
    expect(await host.appliedBytes()).toBe(legacy);
    expect(await host.running()).toEqual(running);
    expect(await host.metrics()).toContain('hephaestus_deploy_tooling_pending 1\n');

    // The operator's documented step: promote the running release again; its verified lock names the commit.
    await lab.promote('staging', ['--release', 'v2.5.0', '--allow-rollback']);
    const completed = await host.tick();
    expect([completed.code, completed.result, completed.reason], completed.stderr).toEqual([0, 'applied', 'reapply']);
    expect(await host.applied()).toMatchObject({
      schema: 2,
      release: 'v2.5.0',
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(await host.metrics()).toContain('hephaestus_deploy_tooling_pending 0\n');

    const seen = (await host.events()).length;
    await lab.promote('staging', ['--release', 'v2.6.0']);
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([0, 'applied']);
    expect(tick.journal.find((l) => l.startsWith('stop-worker'))).toMatch(/stopped=app\/worker of=v2\.5\.0/);
    const events = (await host.events()).slice(seen);
    expect(events.filter((e) => e.service === 'worker').map((e) => [e.event, e.version === commit])).toEqual([
      ['stop', false],
      ['start', true],
    ]);
    expect(await host.applied()).toMatchObject({ schema: 2, release: 'v2.6.0', previous: { release: 'v2.5.0' } });
  });
});
