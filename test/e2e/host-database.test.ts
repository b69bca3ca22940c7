// The database image rules of commit channels, one test each: every commit's channel names a freshly built database
// image; the host keeps the running one unless a rule asks for the new one.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHostLab } from '../support/host/host-lab.ts';
import type { Host, HostLab } from '../support/host/host-lab.ts';

let lab: HostLab;
let host: Host;
let app: Record<string, string>;
let builds = 0;

/** Commits `files`, builds a new database image for it, promotes the commit channel and runs a tick. */
async function deploy(
  files: Record<string, string>,
  options: { date?: string; promoteArgs?: readonly string[]; beforeTick?: (commit: string) => Promise<void> } = {},
) {
  const commit = await lab.commit(files, `change ${builds}`, options.date);
  builds += 1;
  const database = await lab.build(`db${builds}`, { only: ['HEPHAESTUS_IMAGE_POSTGRES'] });
  const before = (await host.running()).postgres;
  await lab.promoteCommit('staging', commit, { ...app, ...database }, options.promoteArgs);
  await options.beforeTick?.(commit);
  const tick = await host.tick();
  expect([tick.code, tick.result], tick.stderr).toEqual([0, 'applied']);
  const reason = /database=([\w-]+)/.exec(tick.journal.find((l) => l.startsWith('prepare')) ?? '')?.[1];
  return { commit, before, after: (await host.running()).postgres, fresh: database.HEPHAESTUS_IMAGE_POSTGRES, reason };
}

beforeAll(async () => {
  lab = await makeHostLab();
  app = await lab.build('app', {
    only: ['HEPHAESTUS_IMAGE_API', 'HEPHAESTUS_IMAGE_WORKER', 'HEPHAESTUS_IMAGE_MIGRATE'],
  });
  host = await lab.host('staging');
  const first = await deploy({});
  expect(first.reason).toBe('no-record');
  expect(first.after?.image).toBe(first.fresh);
});
afterAll(async () => {
  await lab?.cleanup();
});

describe('database image carry-forward (commit channels)', () => {
  it('keeps the running database image and container when nothing about the database changed', async () => {
    const { before, after, fresh, reason } = await deploy({ 'services/api/src/note.txt': 'api only\n' });
    expect(reason).toBe('kept');
    expect(after).toEqual(before);
    expect(after?.image).not.toBe(fresh);
  });

  it('takes the new image when docker/postgres/ changed; the new container keeps the data (the data volume)', async () => {
    await host.psql("INSERT INTO jobs (kind) VALUES ('kept across a database restart')");
    const db = join(lab.repo.work, 'docker/postgres/db.sh');
    const { before, after, fresh, reason } = await deploy({
      'docker/postgres/db.sh': `${await readFile(db, 'utf8')}# tuned\n`,
    });
    expect(await host.psql('SELECT kind FROM jobs')).toBe('kept across a database restart');
    // The old server stopped cleanly on SIGTERM (its stop recorded) before the new one started on the same volume.
    const events = (await host.events()).filter((e) => e.service === 'postgres');
    const stop = events.findIndex((e) => e.event === 'stop' && e.version === before?.image);
    expect(stop).toBeGreaterThanOrEqual(0);
    expect(events.findIndex((e, i) => i > stop && e.event === 'start' && e.version === fresh)).toBeGreaterThan(stop);
    expect(reason).toBe('inputs-changed');
    expect(after?.image).toBe(fresh);
    expect(after?.id).not.toBe(before?.id);
  });

  it("takes the new image when the database image's build workflow (ci.yml, which publishes main's images) changed", async () => {
    const { after, fresh, reason } = await deploy({
      '.github/workflows/ci.yml': 'name: CI\non: { push: { branches: [main] } }\njobs: {}\n',
    });
    expect(reason).toBe('inputs-changed');
    expect(after?.image).toBe(fresh);
  });

  it('takes the new image when the postgres service definition changed', async () => {
    const core = join(lab.repo.work, 'docker/compose.core.yaml');
    const text = (await readFile(core, 'utf8')).replace(
      '      PHAROS_SERVICE: postgres\n',
      '      PHAROS_SERVICE: postgres\n      PHAROS_TUNING: "2"\n',
    );
    const { after, fresh, reason } = await deploy({ 'docker/compose.core.yaml': text });
    expect(reason).toBe('service-changed');
    expect(after?.image).toBe(fresh);
  });

  it('takes the new image when the channel asks for refreshDatabaseImage', async () => {
    const { after, fresh, reason } = await deploy(
      { 'services/api/src/note.txt': 'refresh\n' },
      { promoteArgs: ['--refresh-database-image'] },
    );
    expect(reason).toBe('refresh-requested');
    expect(after?.image).toBe(fresh);
  });

  it('takes the new image when there is no usable record of the running one', async () => {
    const { after, fresh, reason } = await deploy(
      { 'services/api/src/note.txt': 'no record\n' },
      {
        beforeTick: async () => {
          // The running target's retained lock was written by a release that did not pin the database.
          const applied = await host.applied();
          const file = join(host.root, 'release-locks', `${String(applied?.commit)}.env`);
          await writeFile(file, (await readFile(file, 'utf8')).replace(/^HEPHAESTUS_IMAGE_POSTGRES=.*\n/m, ''), {
            mode: 0o600,
          });
        },
      },
    );
    expect(reason).toBe('no-record');
    expect(after?.image).toBe(fresh);
  });

  it('takes the new image for the first commit of a later UTC day, and keeps it for the next commit that day', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    const first = await deploy({ 'services/api/src/note.txt': 'tomorrow\n' }, { date: tomorrow });
    expect(first.reason).toBe('new-day');
    expect(first.after?.image).toBe(first.fresh);
    const second = await deploy(
      { 'services/api/src/note.txt': 'later tomorrow\n' },
      { date: new Date(Date.parse(tomorrow) + 60_000).toISOString() },
    );
    expect(second.reason).toBe('kept');
    expect(second.after).toEqual(first.after);
  });
});
