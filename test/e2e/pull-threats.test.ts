// One test per row of the threat table in docs/threat-model.md: attack a real deploy-state made by promote.ts, see --plan refuse.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningKey, signWithKey } from '../../scripts/lib/signing/index.ts';
import { makeScenario } from '../support/deploy-state.ts';
import type { Scenario } from '../support/deploy-state.ts';
import { GITHUB_ISSUER, startMockSigstore } from '../support/mock-sigstore.ts';
import type { MockSigstore } from '../support/mock-sigstore.ts';
import { writeKeyPair } from '../support/signing-keys.ts';

let s: Scenario;
const keyOpt = () => ['--key', s.key];

async function fresh(environment: string, release: string): Promise<string> {
  const promoted = await s.promote(['--env', environment, '--release', release, ...keyOpt()]);
  expect(promoted.code, promoted.stderr).toBe(0);
  const plan = await s.plan(environment);
  expect([plan.decision, plan.reason]).toEqual(['apply', 'new-target']);
  await s.recordApplied(environment, plan);
  return plan.deployStateCommit;
}

beforeAll(async () => {
  s = await makeScenario();
});
afterAll(async () => {
  await s.repo.cleanup();
});

describe('threat table: each attack on deploy-state is refused by --plan', () => {
  it('baseline: an honest promotion applies, and the next tick is unchanged', async () => {
    await fresh('baseline', 'v1.0.0');
    const again = await s.plan('baseline');
    expect([again.decision, again.reason, again.code]).toEqual(['noop', 'unchanged', 0]);
  });

  it('rollback: an older release without allowRollback is refused (and promote.ts will not write one)', async () => {
    await fresh('rollback', 'v1.1.0');
    const refused = await s.promote(['--env', 'rollback', '--release', 'v1.0.0', ...keyOpt()]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--allow-rollback/);
    const current = JSON.parse((await s.show('channels/rollback.json')).toString());
    const forged = Buffer.from(
      `${JSON.stringify({ ...current, version: current.version + 1, release: 'v1.0.0' }, null, 2)}\n`,
    );
    await s.tamper({
      'channels/rollback.json': forged,
      'channels/rollback.json.sigstore.json': signWithKey(
        forged,
        loadSigningKey(await import('node:fs').then((fs) => fs.readFileSync(s.key)), 'k'),
      ),
    });
    const plan = await s.plan('rollback');
    expect([plan.decision, plan.reason, plan.code]).toEqual(['refuse', 'rollback', 1]);
    const allowed = await s.promote(['--env', 'rollback', '--release', 'v1.0.0', '--allow-rollback', ...keyOpt()]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect((await s.plan('rollback')).reason).toBe('new-target');
  });

  it('replay: an older signed channel put back on deploy-state is refused', async () => {
    await s.promote(['--env', 'replay', '--release', 'v1.0.0', ...keyOpt()]);
    const [oldChannel, oldBundle] = [
      await s.show('channels/replay.json'),
      await s.show('channels/replay.json.sigstore.json'),
    ];
    await fresh('replay', 'v1.1.0');
    await s.tamper({ 'channels/replay.json': oldChannel, 'channels/replay.json.sigstore.json': oldBundle });
    const plan = await s.plan('replay');
    expect([plan.decision, plan.reason]).toEqual(['refuse', 'version-replay']);
  });

  it("cross-environment copy: staging's signed channel copied into production's file is refused", async () => {
    await fresh('production', 'v1.0.0');
    await s.promote(['--env', 'staging', '--release', 'v1.2.0', ...keyOpt()]);
    await s.tamper({
      'channels/production.json': await s.show('channels/staging.json'),
      'channels/production.json.sigstore.json': await s.show('channels/staging.json.sigstore.json'),
    });
    const plan = await s.plan('production');
    expect([plan.decision, plan.reason, plan.environment]).toEqual(['refuse', 'environment', 'staging']);
  });

  it('freeze attack: a withheld update shows as stale once the channel expires (exit 3)', async () => {
    await fresh('withheld', 'v1.0.0');
    const plan = await s.plan('withheld', { HEPHAESTUS_NOW: new Date(Date.now() + 8 * 86_400_000).toISOString() });
    expect([plan.decision, plan.reason, plan.code]).toEqual(['stale', 'stale', 3]);
  });

  it("mix-and-match: one promotion's channel with another promotion's bundle is refused", async () => {
    await fresh('mix', 'v1.0.0');
    const oldBundle = await s.show('channels/mix.json.sigstore.json');
    await s.promote(['--env', 'mix', '--release', 'v1.1.0', ...keyOpt()]);
    await s.tamper({ 'channels/mix.json.sigstore.json': oldBundle });
    const plan = await s.plan('mix');
    expect([plan.decision, plan.reason]).toEqual(['refuse', 'signature']);
  });

  it('tampered bytes: an edited release in a signed channel is refused', async () => {
    await fresh('tamper', 'v1.0.0');
    await s.promote(['--env', 'tamper', '--release', 'v1.1.0', ...keyOpt()]);
    const edited = (await s.show('channels/tamper.json')).toString().replace('v1.1.0', 'v1.2.0');
    await s.tamper({ 'channels/tamper.json': edited });
    const plan = await s.plan('tamper');
    expect([plan.decision, plan.reason]).toEqual(['refuse', 'signature']);
  });

  it("wrong identity (keys): a channel signed with the attacker's own key is refused", async () => {
    await fresh('identity', 'v1.0.0');
    const mallory = writeKeyPair(s.repo.root, 'mallory');
    // Mallory runs promote.ts with the real promotion trust, so it reads the current channel and signs with her key.
    const promoted = await s.promote(['--env', 'identity', '--release', 'v1.1.0', '--key', mallory.key], {
      HEPHAESTUS_PROMOTE_KEYS: s.pub,
    });
    expect(promoted.code).toBe(0);
    const plan = await s.plan('identity');
    expect([plan.decision, plan.reason]).toEqual(['refuse', 'signature']);
  });

  describe('wrong identity (keyless, offline against @sigstore/mock)', () => {
    const PROMOTE = 'https://github.com/acme/platform/.github/workflows/promote.yml@refs/heads/main';
    let mock: MockSigstore;
    let keyless: NodeJS.ProcessEnv;
    let root: string;
    beforeAll(async () => {
      mock = await startMockSigstore();
      root = join(s.repo.root, 'trusted_root.json');
      await writeFile(root, mock.trustedRoot);
      keyless = {
        HEPHAESTUS_TRUSTED_KEYS: '',
        HEPHAESTUS_PROMOTE_IDENTITY: PROMOTE,
        HEPHAESTUS_OIDC_ISSUER: GITHUB_ISSUER,
        HEPHAESTUS_TRUSTED_ROOT: root,
      };
    });
    afterAll(() => mock.close());
    // One environment per signer: promote.ts refuses to replace a channel signed by anyone but the pinned identity.
    const promoteAs = (env: string, san: string, issuer = GITHUB_ISSUER) =>
      s.promote(
        [
          '--env',
          env,
          '--release',
          'v1.1.0',
          '--keyless',
          '--fulcio-url',
          mock.fulcioURL,
          '--rekor-url',
          mock.rekorURL,
        ],
        {
          SIGSTORE_ID_TOKEN: mock.token(san, issuer),
          HEPHAESTUS_PROMOTE_IDENTITY: PROMOTE,
          HEPHAESTUS_TRUSTED_ROOT: root,
        },
      );

    it('accepts the pinned promotion workflow', async () => {
      expect((await promoteAs('keyless-pinned', PROMOTE)).code).toBe(0);
      const plan = await s.plan('keyless-pinned', keyless);
      expect([plan.decision, plan.reason]).toEqual(['apply', 'new-target']);
      // The next promotion verifies that keyless channel with the pinned identity before it replaces it.
      const next = await promoteAs('keyless-pinned', PROMOTE);
      expect([next.code, next.stderr]).toEqual([
        0,
        expect.stringMatching(/promote: sign environment="keyless-pinned" version=2/),
      ]);
    });

    it('refuses another workflow of the same repository (wrong SAN)', async () => {
      expect((await promoteAs('keyless-san', PROMOTE.replace('promote.yml', 'release.yml'))).code).toBe(0);
      const plan = await s.plan('keyless-san', keyless);
      expect([plan.decision, plan.reason]).toEqual(['refuse', 'signature']);
    });

    it('refuses a branch whose name only starts with the pinned one (main-evil): identities are compared exactly', async () => {
      expect((await promoteAs('keyless-evil', PROMOTE.replace('refs/heads/main', 'refs/heads/main-evil'))).code).toBe(
        0,
      );
      const plan = await s.plan('keyless-evil', keyless);
      expect([plan.decision, plan.reason, plan.code]).toEqual(['refuse', 'signature', 1]);
      expect(plan.stderr + JSON.stringify(plan)).toMatch(/main-evil/);
    });

    it('refuses the right SAN from another issuer', async () => {
      expect((await promoteAs('keyless-issuer', PROMOTE, 'https://evil.example')).code).toBe(0);
      const plan = await s.plan('keyless-issuer', keyless);
      expect([plan.decision, plan.reason]).toEqual(['refuse', 'signature']);
    });
  });

  it('force-pushed history: a deploy-state that does not descend from the accepted commit is refused', async () => {
    const accepted = await fresh('rewrite', 'v1.0.0');
    const channel = await s.show('channels/rewrite.json');
    const bundle = await s.show('channels/rewrite.json.sigstore.json');
    const parent = (await s.repo.git(['rev-parse', `${accepted}^`], s.repo.remote)).trim();
    await s.tamper(
      { 'channels/rewrite.json': channel, 'channels/rewrite.json.sigstore.json': bundle, NOTE: 'rewritten\n' },
      { parent },
    );
    const plan = await s.plan('rewrite');
    expect([plan.decision, plan.reason]).toEqual(['refuse', 'not-descendant']);
  });

  it('endless data: a channel or bundle over 1 MiB is refused before it is read', async () => {
    await fresh('endless', 'v1.0.0');
    await s.tamper({ 'channels/endless.json': Buffer.alloc(2 * 1024 * 1024, 0x20) });
    expect((await s.plan('endless')).reason).toBe('too-large');
    await s.tamper({
      'channels/endless.json': await s.show('channels/endless.json', 'deploy-state~1'),
      'channels/endless.json.sigstore.json': Buffer.alloc(1024 * 1024 + 1, 0x7b),
    });
    expect((await s.plan('endless')).reason).toBe('too-large');
  });

  it('key compromise: after rotation the old key signs nothing a host accepts', async () => {
    await fresh('rotate', 'v1.0.0');
    const next = writeKeyPair(s.repo.root, 'next');
    const rotated = { HEPHAESTUS_TRUSTED_KEYS: next.pub };
    const stolen = await s.promote(['--env', 'rotate', '--release', 'v1.1.0', ...keyOpt()]);
    expect(stolen.code).toBe(0);
    expect((await s.plan('rotate', rotated)).reason).toBe('signature');
    // During the rotation promote.ts trusts both keys, so the new key may replace the channel the stolen key signed.
    const both = join(s.repo.root, 'rotate-both.pub');
    await writeFile(both, `${next.pair.publicPem}${await readFile(s.pub, 'utf8')}`);
    const replaced = await s.promote(['--env', 'rotate', '--release', 'v1.1.0', '--key', next.key], {
      HEPHAESTUS_PROMOTE_KEYS: both,
    });
    expect(replaced.code, replaced.stderr).toBe(0);
    expect((await s.plan('rotate', rotated)).reason).toBe('new-target');
  });
});
