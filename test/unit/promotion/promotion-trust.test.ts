import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyHint } from '../../../scripts/lib/signing/key-hint.ts';
import { promotionTrust } from '../../../scripts/lib/promotion/promotion-trust.ts';
import { writeKeyPair } from '../../support/signing-keys.ts';
import { createPublicKey } from 'node:crypto';

const dir = mkdtempSync(join(tmpdir(), 'promotion-trust-'));
const signing = writeKeyPair(dir, 'promote');
const other = writeKeyPair(dir, 'other');
const hints = (policy: Awaited<ReturnType<typeof promotionTrust>>) =>
  policy.kind === 'keys' ? policy.keys.map((k) => keyHint(k)) : [];

describe('promotionTrust(): whom promote.ts believes signed the channel it replaces', () => {
  it('HEPHAESTUS_PROMOTE_KEYS first, as on hosts', async () => {
    const policy = await promotionTrust({ key: signing.key, keyless: false }, { HEPHAESTUS_PROMOTE_KEYS: other.pub });
    expect(hints(policy)).toEqual([keyHint(createPublicKey(other.pair.publicPem))]);
  });

  it('then the keyless identity, with the GitHub issuer by default', async () => {
    const policy = await promotionTrust(
      { key: undefined, keyless: true },
      { HEPHAESTUS_PROMOTE_IDENTITY: 'https://github.com/o/r/.github/workflows/promote.yml@refs/heads/main' },
    );
    expect(policy).toMatchObject({
      kind: 'keyless',
      identity: 'https://github.com/o/r/.github/workflows/promote.yml@refs/heads/main',
      issuer: 'https://token.actions.githubusercontent.com',
    });
  });

  it('then the public half of --key; an empty variable counts as unset', async () => {
    const policy = await promotionTrust({ key: signing.key, keyless: false }, { HEPHAESTUS_PROMOTE_KEYS: '' });
    expect(hints(policy)).toEqual([keyHint(createPublicKey(signing.pair.publicPem))]);
  });

  it('--keyless alone names nobody: a usage error (exit 2)', async () => {
    await expect(promotionTrust({ key: undefined, keyless: true }, {})).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/--keyless needs HEPHAESTUS_PROMOTE_IDENTITY/),
    });
  });

  it('refuses an identity and a pattern together', async () => {
    await expect(
      promotionTrust(
        { key: undefined, keyless: true },
        { HEPHAESTUS_PROMOTE_IDENTITY: 'a', HEPHAESTUS_PROMOTE_IDENTITY_PATTERN: 'b' },
      ),
    ).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/not both/) });
  });
});
