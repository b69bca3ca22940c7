// --plan over migration cases: seed (schema-1) channels and applied records without channelIdentity.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningKey, signWithKey } from '../../scripts/lib/signing/index.ts';
import { makeScenario } from '../support/deploy-state.ts';
import type { Scenario } from '../support/deploy-state.ts';
import { runScript } from '../support/platform-repo.ts';

let s: Scenario;
beforeAll(async () => {
  s = await makeScenario();
});
afterAll(async () => {
  await s.repo.cleanup();
});

describe('reconcile-deployment.ts --plan during migration', () => {
  it('refuses a seed (schema-1) channel unless HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL=1', async () => {
    const seed = Buffer.from('{"release": "v1.0.0"}\n');
    await s.tamper({
      'channels/seed.json': seed,
      'channels/seed.json.sigstore.json': signWithKey(seed, loadSigningKey(readFileSync(s.key), 'k')),
    });
    const refused = await s.plan('seed');
    expect([refused.decision, refused.reason]).toEqual(['refuse', 'malformed']);
    const accepted = await s.plan('seed', { HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL: '1' });
    expect(accepted).toMatchObject({
      decision: 'apply',
      reason: 'new-target',
      version: null,
      target: { release: 'v1.0.0' },
    });
  });

  it("treats a seed applied.json's accepted commit as the applied request, then a new promotion applies", async () => {
    await s.promote(['--env', 'legacy', '--release', 'v1.0.0', '--key', s.key]);
    const first = await s.plan('legacy');
    await mkdir(s.hostRoot('legacy'), { recursive: true });
    const seedRecord = {
      release: 'v1.0.0',
      commit: s.commits[0],
      channelCommit: first.deployStateCommit,
      appliedAt: '2026-11-01T00:00:00Z',
      previous: null,
    };
    await writeFile(join(s.hostRoot('legacy'), 'applied.json'), JSON.stringify(seedRecord));
    expect((await s.plan('legacy')).reason).toBe('unchanged');
    await s.promote(['--env', 'other', '--release', 'v1.1.0', '--key', s.key]);
    expect((await s.plan('legacy')).reason).toBe('other-environment-moved');
    await s.promote(['--env', 'legacy', '--release', 'v1.1.0', '--key', s.key]);
    expect((await s.plan('legacy')).reason).toBe('new-target');
  });

  it('stops with exit 1 on a corrupt applied.json and changes nothing', async () => {
    await s.promote(['--env', 'corrupt', '--release', 'v1.0.0', '--key', s.key]);
    await mkdir(s.hostRoot('corrupt'), { recursive: true });
    await writeFile(join(s.hostRoot('corrupt'), 'applied.json'), '{"schema": 2, "commit": ');
    const result = await runScript('reconcile-deployment.ts', ['--plan', '--json'], {
      HEPHAESTUS_CHANNEL: 'corrupt',
      HEPHAESTUS_REPOSITORY: s.repo.remote,
      HEPHAESTUS_TRUSTED_KEYS: s.pub,
      HEPHAESTUS_ROOT: s.hostRoot('corrupt'),
      HEPHAESTUS_ETC: '/nonexistent',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/applied-corrupt.*applied\.json/);
  });

  it('prints a readable plan without --json; without --plan a tick runs and fails on the missing lock, exit 1', async () => {
    const env = {
      HEPHAESTUS_CHANNEL: 'corrupt',
      HEPHAESTUS_REPOSITORY: s.repo.remote,
      HEPHAESTUS_TRUSTED_KEYS: s.pub,
      HEPHAESTUS_ROOT: s.hostRoot('plain'),
      HEPHAESTUS_ETC: '/nonexistent',
    };
    const plain = await runScript('reconcile-deployment.ts', ['--plan'], env);
    expect(plain.out).toMatch(/^decision: apply \(new-target\)\nenvironment: corrupt\nversion: 1\ntarget: v1\.0\.0\n/);
    const apply = await runScript('reconcile-deployment.ts', [], env);
    expect([apply.code, apply.stderr]).toEqual([
      1,
      expect.stringMatching(/prepare step=5 status=failed .*release-v1\.0\.0\.json/),
    ]);
  });
});
