// promote.ts reads the current channel only after verifying it with the promotion trust: a channel pushed to deploy-state
// by anyone else (unsigned, signed by another key, copied from another environment) is refused, never signed again.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningKey, signWithKey } from '../../scripts/lib/signing/index.ts';
import { makeScenario } from '../support/deploy-state.ts';
import type { Scenario } from '../support/deploy-state.ts';
import { pinnedImages } from '../support/platform-repo.ts';
import { writeKeyPair } from '../support/signing-keys.ts';

let s: Scenario;
let history: string;
let imagesFile: string;
const MALLORY_IMAGES = pinnedImages('mallory');

beforeAll(async () => {
  s = await makeScenario();
  history = join(s.repo.root, 'ci-history.json');
  await writeFile(
    history,
    JSON.stringify({
      builds: s.commits.map((commit, i) => ({
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

const tip = async () => (await s.repo.git(['rev-parse', 'refs/heads/deploy-state'], s.repo.remote)).trim();

/** The current channel of `env` with `change` applied, as a writer with push access would write it (no new signature). */
async function forged(env: string, change: Record<string, unknown>): Promise<Buffer> {
  const current = JSON.parse((await s.show(`channels/${env}.json`)).toString());
  const next = { ...current, ...change };
  if ('commit' in change) delete next.release;
  return Buffer.from(`${JSON.stringify(next, null, 2)}\n`);
}

async function honest(env: string, args: readonly string[]): Promise<void> {
  const promoted = await s.promote(['--env', env, ...args, '--key', s.key]);
  expect(promoted.code, promoted.stderr).toBe(0);
  const plan = await s.plan(env);
  expect([plan.decision, plan.reason]).toEqual(['apply', 'new-target']);
  await s.recordApplied(env, plan);
}

describe('promote.ts verifies the current channel before it decides or signs', () => {
  it("refresh refuses an unsigned channel naming the attacker's commit: exit 1, deploy-state and the host as they were", async () => {
    await honest('oracle', ['--release', 'v1.1.0']);
    const attacker = await forged('oracle', { commit: s.commits[3], images: MALLORY_IMAGES });
    const before = await s.tamper({ 'channels/oracle.json': attacker });
    const refreshed = await s.runRefresh(['--env', 'oracle', '--key', s.key]);
    expect(refreshed.code).toBe(1);
    expect(refreshed.stderr).toMatch(/unverified-channel.*channels\/oracle\.json/);
    expect(await tip()).toBe(before);
    const plan = await s.plan('oracle');
    expect([plan.decision, plan.reason]).toEqual(['refuse', 'signature']);
  });

  it('refresh refuses a channel signed by another key, and a channel copied from another environment', async () => {
    await honest('signed-elsewhere', ['--release', 'v1.1.0']);
    const mallory = writeKeyPair(s.repo.root, 'mallory-refresh');
    const attacker = await forged('signed-elsewhere', { release: 'v1.2.0', version: 7 });
    const bundle = signWithKey(attacker, loadSigningKey(mallory.pair.privatePem, mallory.key));
    const before = await s.tamper({
      'channels/signed-elsewhere.json': attacker,
      'channels/signed-elsewhere.json.sigstore.json': bundle,
    });
    const refreshed = await s.runRefresh(['--env', 'signed-elsewhere', '--key', s.key]);
    expect([refreshed.code, refreshed.stderr]).toEqual([1, expect.stringMatching(/signed-elsewhere\.json/)]);
    expect(await tip()).toBe(before);

    await honest('copy-target', ['--release', 'v1.0.0']);
    await honest('copy-source', ['--release', 'v1.2.0']);
    const copied = await s.tamper({
      'channels/copy-target.json': await s.show('channels/copy-source.json'),
      'channels/copy-target.json.sigstore.json': await s.show('channels/copy-source.json.sigstore.json'),
    });
    const copy = await s.runRefresh(['--env', 'copy-target', '--key', s.key]);
    expect([copy.code, copy.stderr]).toEqual([1, expect.stringMatching(/environment "copy-source"/)]);
    expect(await tip()).toBe(copied);
  });

  it('--auto never clears a freeze through an unsigned copy of the frozen channel (exit 1, nothing signed)', async () => {
    const promoted = await s.promote([
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
    expect(promoted.code, promoted.stderr).toBe(0);
    const frozen = await s.show('channels/staging.json');
    const before = await s.tamper({ 'channels/staging.json': await forged('staging', { freeze: false }) });
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
    expect(auto.code).toBe(1);
    expect(auto.stderr).toMatch(/unverified-channel.*channels\/staging\.json/);
    expect(await tip()).toBe(before);
    expect(JSON.parse((await s.show('channels/staging.json', `${before}~1`)).toString())).toEqual(
      JSON.parse(frozen.toString()),
    );
  });

  it('a manual promotion does not take its version from a forged channel', async () => {
    await honest('manual', ['--release', 'v1.0.0']);
    const before = await s.tamper({
      'channels/manual.json': await forged('manual', { version: Number.MAX_SAFE_INTEGER - 1 }),
    });
    const promoted = await s.promote(['--env', 'manual', '--release', 'v1.1.0', '--key', s.key]);
    expect([promoted.code, promoted.stderr]).toEqual([1, expect.stringMatching(/channels\/manual\.json/)]);
    expect(await tip()).toBe(before);
  });

  it('a key rotation trusts both keys through HEPHAESTUS_PROMOTE_KEYS; without it the new key refuses the old channel', async () => {
    await honest('rotation', ['--release', 'v1.0.0']);
    const next = writeKeyPair(s.repo.root, 'rotation-next');
    const alone = await s.promote(['--env', 'rotation', '--release', 'v1.1.0', '--key', next.key]);
    expect([alone.code, alone.stderr]).toEqual([1, expect.stringMatching(/HEPHAESTUS_PROMOTE_KEYS/)]);
    const both = join(s.repo.root, 'rotation-both.pub');
    await writeFile(both, `${next.pair.publicPem}${(await import('node:fs')).readFileSync(s.pub, 'utf8')}`);
    const rotated = await s.promote(['--env', 'rotation', '--release', 'v1.1.0', '--key', next.key], {
      HEPHAESTUS_PROMOTE_KEYS: both,
    });
    expect(rotated.code, rotated.stderr).toBe(0);
  });
});
