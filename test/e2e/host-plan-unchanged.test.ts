// `--plan` on an unchanged channel with real git: the signature is verified every time (rule 7), over one object reader.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePlatformRepo, runScript } from '../support/platform-repo.ts';
import type { PlatformRepo } from '../support/platform-repo.ts';
import { writeKeyPair } from '../support/signing-keys.ts';
import { channelIdentity } from '../../scripts/lib/channel/channel-identity.ts';

let repo: PlatformRepo;
let host: string;
let env: NodeJS.ProcessEnv;
let other: string;

beforeAll(async () => {
  repo = await makePlatformRepo();
  host = await mkdtemp(join(tmpdir(), 'hephaestus-plan-unchanged-'));
  const commit = await repo.commitOnMain('release');
  await repo.tag('v1.0.0', commit);
  const keys = writeKeyPair(repo.root, 'promote');
  other = writeKeyPair(repo.root, 'other').pub;
  const promoted = await runScript('promote.ts', [
    ...['--repo', repo.remote, '--env', 'staging', '--release', 'v1.0.0', '--key', keys.key, '--json'],
  ]);
  if (promoted.code !== 0) throw new Error(promoted.stderr);
  const deployState = JSON.parse(promoted.out).deployStateCommit as string;
  const show = (path: string) => spawnSync('git', ['-C', repo.remote, 'show', `${deployState}:${path}`]).stdout;
  const identity = channelIdentity(show('channels/staging.json'), show('channels/staging.json.sigstore.json'));
  const applied = { schema: 2, release: 'v1.0.0', commit, channelCommit: deployState, channelVersion: 1 };
  await writeFile(
    join(host, 'applied.json'),
    JSON.stringify({ ...applied, channelIdentity: identity, appliedAt: new Date().toISOString() }),
  );
  env = {
    HEPHAESTUS_CHANNEL: 'staging',
    HEPHAESTUS_REPOSITORY: repo.remote,
    HEPHAESTUS_PROMOTE_KEYS: keys.pub,
    HEPHAESTUS_RELEASE_KEYS: other,
    HEPHAESTUS_ROOT: host,
    HEPHAESTUS_ETC: join(host, 'etc'),
  };
});
afterAll(async () => {
  await repo?.cleanup();
  if (host !== undefined) await rm(host, { recursive: true, force: true });
});

describe('reconcile-deployment.ts --plan, unchanged channel', () => {
  it('is a noop signed by the trusted key, verified on this run', async () => {
    const plan = await runScript('reconcile-deployment.ts', ['--plan', '--json'], env);
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.out)).toMatchObject({ decision: 'noop', reason: 'unchanged', version: 1 });
  });

  it('the same bytes stop passing once the host stops trusting their key: nothing is taken on trust from applied.json', async () => {
    const plan = await runScript('reconcile-deployment.ts', ['--plan', '--json'], {
      ...env,
      HEPHAESTUS_PROMOTE_KEYS: other,
    });
    expect(plan.code, plan.stderr).toBe(1);
    expect(JSON.parse(plan.out)).toMatchObject({ decision: 'refuse', reason: 'signature' });
    expect(JSON.parse(plan.out).message).toMatch(/Cannot verify "channels\/staging\.json"/);
  });

  it('argv the fast path does not know goes through cmd-ts: a repeated flag is a usage error (exit 2)', async () => {
    const plan = await runScript('reconcile-deployment.ts', ['--plan', '--plan'], env);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toMatch(/Expected 1 occurence, got 2/);
  });

  it('two plans at once: one decides, the other exits 75 (or both decide, one after the other)', async () => {
    const runs = await Promise.all([
      runScript('reconcile-deployment.ts', ['--plan', '--json'], env),
      runScript('reconcile-deployment.ts', ['--plan', '--json'], env),
    ]);
    const codes = runs.map((r) => r.code).sort();
    expect([
      [0, 0],
      [0, 75],
    ]).toContainEqual(codes);
    for (const run of runs.filter((r) => r.code === 75))
      expect(JSON.parse(run.out)).toMatchObject({ decision: 'busy', reason: 'tick-running' });
  });
});
