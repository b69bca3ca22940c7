// The host tick against real Docker Engine, Compose, registry and Git: installs, upgrades, no-ops, rollbacks, and the apply order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { indexOf } from '../support/host/events.ts';
import { makeHostLab } from '../support/host/host-lab.ts';
import type { Host, HostLab } from '../support/host/host-lab.ts';

let lab: HostLab;
let host: Host;
const commits: Record<string, string> = {};
const images: Record<string, Record<string, string>> = {};
/** schema_migrations as `version applied_at` lines, from the real database. */
const migrations = () =>
  host.psql("SELECT string_agg(version || ' ' || applied_at, E'\\n' ORDER BY version) FROM schema_migrations");
let firstMigrations = '';

beforeAll(async () => {
  lab = await makeHostLab();
  commits.v1 = await lab.repo.git(['rev-parse', 'HEAD']);
  await lab.tag('v1.0.0', commits.v1);
  images.v1 = await lab.build('v1');
  await lab.publishLock('v1.0.0', commits.v1, images.v1);
  commits.v2 = await lab.commit({ 'contracts/schema-version': '2\n' }, 'schema 2');
  await lab.tag('v1.1.0', commits.v2);
  images.v2 = await lab.build('v2');
  await lab.publishLock('v1.1.0', commits.v2, images.v2);
  host = await lab.host('staging');
});
afterAll(async () => {
  await lab?.cleanup();
});

describe('reconcile-deployment.ts tick (real Docker Compose)', () => {
  it('first install: applies the release, every service runs its locked digest, applied.json and metrics record it', async () => {
    await lab.promote('staging', ['--release', 'v1.0.0']);
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([0, 'applied']);
    expect(tick.journal.map((l) => l.split(' ')[0])).toEqual([
      'read',
      'rebuild',
      'adopt-pending',
      'decide',
      'prepare',
      'render',
      'identify-worker',
      'pull',
      'migrate',
      'stop-worker',
      'up',
      'record',
      'adopt',
      'prune',
      'metrics',
    ]);
    expect(tick.journal.find((l) => l.startsWith('stop-worker'))).toMatch(/stopped=none why="first install"/);
    const running = await host.running();
    expect(Object.keys(running).sort()).toEqual(['api', 'postgres', 'worker']);
    expect(running.api?.image).toBe(images.v1?.HEPHAESTUS_IMAGE_API);
    expect(running.worker?.image).toBe(images.v1?.HEPHAESTUS_IMAGE_WORKER);
    expect(running.postgres?.image).toBe(images.v1?.HEPHAESTUS_IMAGE_POSTGRES);
    expect(await host.applied()).toMatchObject({ schema: 2, release: 'v1.0.0', commit: commits.v1, previous: null });
    const metrics = await host.metrics();
    expect(metrics).toContain('hephaestus_deploy_reconcile_success 1\n');
    expect(metrics).toContain(`hephaestus_deploy_info{channel="staging",release="v1.0.0",`);
    const events = await host.events();
    expect(indexOf(events, { service: 'migrate', event: 'migrate', version: commits.v1 })).toBeLessThan(
      indexOf(events, { service: 'api', event: 'start', version: commits.v1 }),
    );
  });

  it('first install: the migrations created their tables in the real PostgreSQL 15 and recorded each version once', async () => {
    expect(await host.psql('SHOW server_version')).toMatch(/^15\.\d+ \(Debian/);
    expect(
      await host.psql(
        "SELECT to_regclass('public.jobs') IS NOT NULL AND to_regclass('public.job_results') IS NOT NULL",
      ),
    ).toBe('t');
    firstMigrations = await migrations();
    expect(firstMigrations.split('\n').map((l) => l.split(' ')[0])).toEqual(['0001_jobs', '0002_job_results']);
    // The constraint the migration wrote is enforced by the server: a result for a job that does not exist is refused.
    await expect(host.psql("INSERT INTO job_results (job_id, status) VALUES (999, 'done')")).rejects.toThrow(
      /violates foreign key constraint/,
    );
    await host.psql("INSERT INTO jobs (kind, payload) VALUES ('report', '{\"n\": 1}')");
  });

  it('the app stack reaches the database by its service name on the named database network, with the password from the stack env file', async () => {
    const api = (await host.running()).api?.id ?? '';
    const login = await exec('docker', [
      'run',
      '--rm',
      '--network',
      host.database.network,
      '--env',
      `PGPASSWORD=${host.database.password}`,
      '--entrypoint',
      'psql',
      images.v1?.HEPHAESTUS_IMAGE_MIGRATE ?? '',
      '--no-psqlrc',
      '--tuples-only',
      '--no-align',
      '--host=postgres',
      '--username=postgres',
      '--command',
      'SELECT count(*) FROM jobs',
    ]);
    expect([login.code, login.stdout.toString().trim()], login.stderr).toEqual([0, '1']);
    const wrong = await exec('docker', [
      'run',
      '--rm',
      '--network',
      host.database.network,
      '--env',
      'PGPASSWORD=not-the-password',
      '--entrypoint',
      'psql',
      images.v1?.HEPHAESTUS_IMAGE_MIGRATE ?? '',
      '--host=postgres',
      '--username=postgres',
      '--command',
      'SELECT 1',
    ]);
    expect(wrong.stderr).toMatch(/password authentication failed for user "postgres"/);
    const networks = (
      await exec('docker', ['inspect', '--format', '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}', api])
    ).stdout.toString();
    expect(networks.split(' ')).toContain(host.database.network);
  });

  it('upgrade to a new release: migration while the old worker runs, worker stopped before any new container starts, images pulled by digest', async () => {
    // Drop the local copy of one image so the tick must pull it from the registry by digest.
    await exec('docker', ['image', 'rm', images.v2?.HEPHAESTUS_IMAGE_API ?? '']);
    await lab.promote('staging', ['--release', 'v1.1.0']);
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([0, 'applied']);
    expect(tick.journal.find((l) => l.startsWith('pull'))).toMatch(/pulled=1/);
    const events = await host.events();
    const migrate = indexOf(events, { service: 'migrate', event: 'migrate', version: commits.v2 });
    const oldWorkerStart = indexOf(events, { service: 'worker', event: 'start', version: commits.v1 });
    const oldWorkerStop = indexOf(events, { service: 'worker', event: 'stop', version: commits.v1 });
    const newStarts = events.filter((e) => e.event === 'start' && e.version === commits.v2).map((e) => e.line);
    expect(oldWorkerStart).toBeGreaterThanOrEqual(0);
    expect(migrate).toBeGreaterThan(oldWorkerStart);
    expect(oldWorkerStop).toBeGreaterThan(migrate);
    expect(newStarts.length).toBe(2);
    expect(Math.min(...newStarts)).toBeGreaterThan(oldWorkerStop);
    const running = await host.running();
    expect(running.api?.image).toBe(images.v2?.HEPHAESTUS_IMAGE_API);
    expect(running.worker?.image).toBe(images.v2?.HEPHAESTUS_IMAGE_WORKER);
    expect(await host.applied()).toMatchObject({
      release: 'v1.1.0',
      commit: commits.v2,
      previous: { release: 'v1.0.0', commit: commits.v1 },
    });
    // The migration ran again and applied nothing: the same versions, recorded at the same instants.
    expect(await migrations()).toBe(firstMigrations);
  });

  it('an unchanged channel restarts nothing: same container ids, applied.json untouched', async () => {
    const before = await host.running();
    const record = await host.appliedBytes();
    const tick = await host.tick();
    expect([tick.code, tick.result, tick.reason], tick.stderr).toEqual([0, 'noop', 'unchanged']);
    expect(tick.journal.map((l) => l.split(' ')[0])).toEqual(['read', 'rebuild', 'adopt-pending', 'decide', 'metrics']);
    expect(await host.running()).toEqual(before);
    expect(await host.appliedBytes()).toBe(record);
  });

  it('another environment promoted: nothing restarts, the accepted deploy-state commit moves', async () => {
    const before = await host.running();
    const was = await host.applied();
    await lab.promote('production', ['--release', 'v1.0.0']);
    const tick = await host.tick();
    expect([tick.code, tick.result, tick.reason], tick.stderr).toEqual([0, 'noop', 'other-environment-moved']);
    expect(await host.running()).toEqual(before);
    const now = await host.applied();
    expect(now?.channelCommit).not.toBe(was?.channelCommit);
    expect({ ...now, channelCommit: undefined }).toEqual({ ...was, channelCommit: undefined });
  });

  it('rollback to an older release is refused without allowRollback, then applied with it', async () => {
    const before = await host.running();
    const record = await host.appliedBytes();
    await lab.signChannel('staging', { release: 'v1.0.0', allowRollback: false });
    const refused = await host.tick();
    expect([refused.code, refused.result, refused.reason], refused.stderr).toEqual([1, 'refused', 'rollback']);
    expect(await host.running()).toEqual(before);
    expect(await host.appliedBytes()).toBe(record);
    expect(await host.metrics()).toContain('hephaestus_deploy_reconcile_success 0\n');
    await lab.promote('staging', ['--release', 'v1.0.0', '--allow-rollback']);
    const applied = await host.tick();
    expect([applied.code, applied.result], applied.stderr).toEqual([0, 'applied']);
    expect((await host.running()).api?.image).toBe(images.v1?.HEPHAESTUS_IMAGE_API);
    expect(await host.applied()).toMatchObject({
      release: 'v1.0.0',
      commit: commits.v1,
      previous: { release: 'v1.1.0' },
    });
  });

  it("upgrade to a new commit: the commit channel's images run, the database keeps its image, container and data, the new migration applies", async () => {
    commits.v3 = await lab.commit(
      {
        'services/api/src/version.txt': 'three\n',
        'services/worker/migrations/0003_job_priority.sql':
          'ALTER TABLE jobs ADD COLUMN priority integer NOT NULL DEFAULT 0;\n',
      },
      'api change, job priority',
    );
    images.v3 = await lab.build('v3', { context: lab.repo.work });
    const before = await host.running();
    await lab.promoteCommit('staging', commits.v3, images.v3);
    const tick = await host.tick();
    expect([tick.code, tick.result], tick.stderr).toEqual([0, 'applied']);
    expect(tick.journal.find((l) => l.startsWith('prepare'))).toMatch(/database=kept/);
    const running = await host.running();
    expect(running.api?.image).toBe(images.v3?.HEPHAESTUS_IMAGE_API);
    expect(running.worker?.image).toBe(images.v3?.HEPHAESTUS_IMAGE_WORKER);
    expect(running.postgres).toEqual(before.postgres);
    expect(await host.psql("SELECT kind || ' ' || priority FROM jobs")).toBe('report 0');
    expect((await migrations()).split('\n').map((l) => l.split(' ')[0])).toEqual([
      '0001_jobs',
      '0002_job_results',
      '0003_job_priority',
    ]);
    expect(await host.applied()).toMatchObject({
      commit: commits.v3,
      previous: { release: 'v1.0.0', commit: commits.v1 },
    });
    expect((await host.applied())?.release).toBeUndefined();
  });

  it('a commit the running commit descends from is refused without allowRollback', async () => {
    const before = await host.running();
    await lab.signChannel('staging', { commit: commits.v2 ?? '', images: images.v2 ?? {}, allowRollback: false });
    const refused = await host.tick();
    expect([refused.code, refused.reason], refused.stderr).toEqual([1, 'rollback']);
    expect(await host.running()).toEqual(before);
  });

  it('the images carry no password; the server owns its data as UID 70', async () => {
    for (const image of [images.v1?.HEPHAESTUS_IMAGE_POSTGRES, images.v1?.HEPHAESTUS_IMAGE_MIGRATE]) {
      const config = (
        await exec('docker', [
          'image',
          'inspect',
          '--format',
          '{{json .Config.Env}} {{json .Config.Labels}}',
          image ?? '',
        ])
      ).stdout.toString();
      expect(config).not.toContain(host.database.password);
      expect(config).not.toMatch(/PASSWORD/);
    }
    const postgres = (await host.running()).postgres?.id ?? '';
    expect(
      (await exec('docker', ['exec', postgres, 'stat', '-c', '%u %a', '/var/lib/postgresql/data'])).stdout
        .toString()
        .trim(),
    ).toBe('70 700');
    expect(
      await host.psql(
        "SELECT rolname FROM pg_roles WHERE oid = (SELECT datdba FROM pg_database WHERE datname = 'postgres')",
      ),
    ).toBe('postgres');
  });

  it('two migrations runs at once apply a new file once; a file with its own COMMIT is refused before it runs (exit 2)', async () => {
    const dir = join(host.root, 'extra-migrations');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, '0009_slow.sql'), 'SELECT pg_sleep(1);\nCREATE TABLE slow_once (id integer);\n');
    const migrate = (folder: string) =>
      exec('docker', [
        'run',
        '--rm',
        '--network',
        host.database.network,
        '--env',
        'PGHOST=postgres',
        '--env',
        'PGUSER=postgres',
        '--env',
        `PGPASSWORD=${host.database.password}`,
        '--volume',
        `${folder}:/app/migrations:ro`,
        images.v1?.HEPHAESTUS_IMAGE_MIGRATE ?? '',
      ]);
    const runs = await Promise.all([migrate(dir), migrate(dir)]);
    // One applies it; the other finds it recorded, or blocks on the lock and fails on the record: never applied twice.
    expect(runs.filter((r) => r.code === 0).length).toBeGreaterThanOrEqual(1);
    expect(await host.psql("SELECT count(*) FROM schema_migrations WHERE version = '0009_slow'")).toBe('1');
    const tx = join(host.root, 'tx-migrations');
    await mkdir(tx, { recursive: true });
    await writeFile(join(tx, '0010_own_tx.sql'), 'CREATE TABLE own_tx (id integer);\nCOMMIT;\n');
    const refused = await migrate(tx);
    expect([refused.code, refused.stderr.trim().split('\n').at(-1)]).toEqual([
      2,
      `migrate: refusing /app/migrations/0010_own_tx.sql: it contains COMMIT (line 2); each file already runs in its own transaction, which it must not end`,
    ]);
    expect(await host.psql("SELECT to_regclass('public.own_tx') IS NULL")).toBe('t');
  });
});
