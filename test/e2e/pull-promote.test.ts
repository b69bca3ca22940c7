// promote.ts against a real deploy-state repository: automatic promotion, freeze, refresh, the lock, and what hosts then decide.
import { open, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeScenario } from '../support/deploy-state.ts';
import type { Scenario } from '../support/deploy-state.ts';
import { pinnedImages } from '../support/platform-repo.ts';

let s: Scenario;
let history: string;
let imagesFile: string;

beforeAll(async () => {
  s = await makeScenario();
  const [c1, c2, c3, c4] = s.commits;
  history = join(s.repo.root, 'ci-history.json');
  await writeFile(
    history,
    JSON.stringify({
      builds: [c1, c2, c3, c4].map((commit, i) => ({
        commit,
        completedAt: `2026-11-29T10:0${i}:00Z`,
        images: pinnedImages(String(i)),
      })),
    }),
  );
  imagesFile = join(s.repo.root, 'images.json');
  await writeFile(imagesFile, JSON.stringify(pinnedImages('manual')));
});
afterAll(async () => {
  await s.repo.cleanup();
});

const json = (out: string) =>
  JSON.parse(out) as {
    action: string;
    reason: string | null;
    version: number | null;
    target: { commit?: string; release?: string } | null;
    expires: string;
  };

describe('promote.ts', () => {
  it('automatic promotion needs an initial manual channel, then moves to the most recent successful descendant and leaves older builds alone', async () => {
    const [c1, , , c4] = s.commits;
    const empty = await s.promote([
      '--env',
      'auto',
      '--auto',
      '--commit',
      c1 ?? '',
      '--ci-history',
      history,
      '--key',
      s.key,
    ]);
    expect([empty.code, empty.stderr]).toEqual([
      1,
      expect.stringMatching(/Establish the initial channel with a manual promotion/),
    ]);
    const initial = await s.promote(['--env', 'auto', '--release', 'v1.0.0', '--key', s.key]);
    expect(initial.code, initial.stderr).toBe(0);
    const first = await s.promote([
      '--env',
      'auto',
      '--auto',
      '--commit',
      s.commits[1] ?? '',
      '--ci-history',
      history,
      '--key',
      s.key,
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(json(first.out)).toMatchObject({ action: 'write', version: 2, target: { commit: c4 } });
    const older = await s.promote([
      '--env',
      'auto',
      '--auto',
      '--commit',
      s.commits[2] ?? '',
      '--ci-history',
      history,
      '--key',
      s.key,
    ]);
    expect(json(older.out)).toMatchObject({ action: 'skip', reason: 'older-build' });
    const same = await s.promote([
      '--env',
      'auto',
      '--auto',
      '--commit',
      c4 ?? '',
      '--ci-history',
      history,
      '--key',
      s.key,
    ]);
    expect(json(same.out)).toMatchObject({ action: 'skip', reason: 'already-promoted' });
    const plan = await s.plan('auto');
    expect(plan).toMatchObject({ decision: 'apply', reason: 'new-target', version: 2, target: { commit: c4 } });
  });

  it('refuses a release tag that does not exist before signing: exit 2, one sentence, no channel written', async () => {
    const refused = await s.promote(['--env', 'typo', '--release', 'v9.9.9', '--key', s.key]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'error [unknown-target]: Cannot promote v9.9.9: there is no release tag "v9.9.9" in',
    );
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    await expect(s.show('channels/typo.json')).rejects.toThrow();
  });

  it('writes version, issued and expires (default 7 days) into the signed channel', async () => {
    const promoted = await s.promote(['--env', 'expiry', '--release', 'v1.1.0', '--key', s.key]);
    const channel = JSON.parse((await s.show('channels/expiry.json')).toString());
    expect(channel).toMatchObject({
      schema: 2,
      environment: 'expiry',
      version: 1,
      release: 'v1.1.0',
      allowRollback: false,
      freeze: false,
    });
    expect(Date.parse(channel.expires) - Date.parse(channel.issued)).toBe(7 * 86_400_000);
    expect(json(promoted.out).expires).toBe(channel.expires);
    const short = await s.promote(['--env', 'expiry', '--release', 'v1.1.0', '--key', s.key, '--expires-in', '36h']);
    expect(json(short.out).version).toBe(2);
    const next = JSON.parse((await s.show('channels/expiry.json')).toString());
    expect(Date.parse(next.expires) - Date.parse(next.issued)).toBe(36 * 3_600_000);
  });

  it('only staging can be frozen; a frozen channel stops automatic promotion; hosts still apply it; a re-promotion of the running target restarts nothing', async () => {
    const production = await s.promote(['--env', 'production', '--release', 'v1.0.0', '--freeze', '--key', s.key]);
    expect([production.code, production.stderr]).toEqual([2, expect.stringMatching(/only staging can be frozen/)]);
    const frozen = await s.promote([
      '--env',
      'staging',
      '--commit',
      s.commits[1] ?? '',
      '--images-file',
      imagesFile,
      '--freeze',
      '--key',
      s.key,
    ]);
    expect(frozen.code, frozen.stderr).toBe(0);
    const plan = await s.plan('staging');
    expect([plan.decision, plan.reason]).toEqual(['apply', 'new-target']);
    await s.recordApplied('staging', plan);
    const auto = await s.promote([
      '--env',
      'staging',
      '--auto',
      '--commit',
      s.commits[3] ?? '',
      '--ci-history',
      history,
      '--key',
      s.key,
    ]);
    expect(json(auto.out)).toMatchObject({ action: 'skip', reason: 'frozen' });
    await s.promote([
      '--env',
      'staging',
      '--commit',
      s.commits[1] ?? '',
      '--images-file',
      imagesFile,
      '--freeze',
      '--key',
      s.key,
    ]);
    expect((await s.plan('staging')).reason).toBe('frozen-running');
    await s.promote([
      '--env',
      'staging',
      '--commit',
      s.commits[1] ?? '',
      '--images-file',
      imagesFile,
      '--freeze',
      '--refresh-database-image',
      '--key',
      s.key,
    ]);
    expect((await s.plan('staging')).reason).toBe('reapply');
  });

  it('refresh re-signs the unchanged target with the next version; the host restarts nothing and the channel is not stale', async () => {
    await s.promote(['--env', 'daily', '--release', 'v1.2.0', '--key', s.key]);
    const applied = await s.plan('daily');
    await s.recordApplied('daily', applied);
    const refreshed = await s.runRefresh(['--env', 'daily', '--key', s.key], {
      HEPHAESTUS_NOW: new Date(Date.now() + 6 * 86_400_000).toISOString(),
    });
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(json(refreshed.out)).toMatchObject({ action: 'write', version: 2, target: { release: 'v1.2.0' } });
    const later = await s.plan('daily', { HEPHAESTUS_NOW: new Date(Date.now() + 8 * 86_400_000).toISOString() });
    expect([later.decision, later.reason, later.version]).toEqual(['noop', 'unchanged', 2]);
  });

  it('an unreadable channel stops promotion and is left as it was', async () => {
    await s.promote(['--env', 'broken', '--release', 'v1.0.0', '--key', s.key]);
    const tip = await s.tamper({ 'channels/broken.json': '{"schema": 2, "freeze": tru' });
    const auto = await s.promote([
      '--env',
      'broken',
      '--auto',
      '--commit',
      s.commits[3] ?? '',
      '--ci-history',
      history,
      '--key',
      s.key,
    ]);
    expect(auto.code).toBe(1);
    expect(auto.stderr).toMatch(/unverified-channel.*channels\/broken\.json/);
    expect((await s.repo.git(['rev-parse', 'refs/heads/deploy-state'], s.repo.remote)).trim()).toBe(tip);
  });

  it('a held promotion lock makes a second promotion fail without writing', async () => {
    const lock = join(s.repo.root, 'promote.lock');
    const handle = await open(lock, 'wx');
    await handle.writeFile(`${process.pid}\n`);
    await handle.close();
    try {
      const blocked = await s.promote(['--env', 'locked', '--release', 'v1.0.0', '--key', s.key, '--lock-file', lock]);
      expect(blocked.code).toBe(1);
      expect(blocked.stderr).toMatch(/locked.*pid/);
    } finally {
      await unlink(lock);
    }
    const free = await s.promote(['--env', 'locked', '--release', 'v1.0.0', '--key', s.key, '--lock-file', lock]);
    expect(free.code, free.stderr).toBe(0);
  });

  it('two promotions racing for the same deploy-state both land, one after the other', async () => {
    const [a, b] = await Promise.all([
      s.promote(['--env', 'race-a', '--release', 'v1.0.0', '--key', s.key]),
      s.promote(['--env', 'race-b', '--release', 'v1.1.0', '--key', s.key]),
    ]);
    expect([a.code, b.code], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
    expect((await s.show('channels/race-a.json')).length).toBeGreaterThan(0);
    expect((await s.show('channels/race-b.json')).length).toBeGreaterThan(0);
  });

  it('refuses bad arguments with exit status 2 and a reason', async () => {
    const both = await s.promote(['--env', 'x', '--release', 'v1.0.0', '--commit', s.commits[0] ?? '', '--key', s.key]);
    expect([both.code, both.stderr]).toEqual([2, expect.stringMatching(/exactly one of --release/)]);
    const noKey = await s.promote(['--env', 'x', '--release', 'v1.0.0']);
    expect([noKey.code, noKey.stderr]).toEqual([2, expect.stringMatching(/--key <PEM> and --keyless/)]);
    await writeFile(
      join(s.repo.root, 'bad-images.json'),
      JSON.stringify({ HEPHAESTUS_IMAGE_API: 'ghcr.io/o/api:latest' }),
    );
    const tagged = await s.promote([
      '--env',
      'x',
      '--commit',
      s.commits[0] ?? '',
      '--images-file',
      join(s.repo.root, 'bad-images.json'),
      '--key',
      s.key,
    ]);
    expect([tagged.code, tagged.stderr]).toEqual([
      2,
      expect.stringMatching(/bad-images\.json: HEPHAESTUS_IMAGE_API: .*ghcr\.io\/o\/api:latest/),
    ]);
  });
});
