// Keyless identities are compared exactly (sigstore-js would read the pin as an unanchored regular expression), patterns
// only when configured as one and always anchored; bundles and trusted roots must be self-consistent.
import { createHash, createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadSigningKey,
  parseTrustedRoot,
  signKeyless,
  signWithKey,
  verifyBundle,
} from '../../../scripts/lib/signing/index.ts';
import type { IdentityPin, TrustPolicy } from '../../../scripts/lib/signing/index.ts';
import { identityMatches } from '../../../scripts/lib/signing/identity-match.ts';
import { GITHUB_ISSUER, startMockSigstore } from '../../support/mock-sigstore.ts';
import type { MockSigstore } from '../../support/mock-sigstore.ts';
import { makeKeyPair } from '../../support/signing-keys.ts';

const WORKFLOW = 'https://github.com/acme/platform/.github/workflows';
const PROMOTE = `${WORKFLOW}/promote.yml@refs/heads/main`;
const RELEASE_TAG = `${WORKFLOW}/release.yml@refs/tags/v1.2.3`;
const artifact = Buffer.from('{"schema":2,"environment":"production","version":3}\n');

let mock: MockSigstore;
let policy: (identity: IdentityPin) => TrustPolicy;
const bundles = new Map<string, Buffer>();

async function signedAs(san: string): Promise<Buffer> {
  const known = bundles.get(san);
  if (known !== undefined) return known;
  const bundle = Buffer.from(
    await signKeyless(artifact, { fulcioURL: mock.fulcioURL, rekorURL: mock.rekorURL, identityToken: mock.token(san) }),
  );
  bundles.set(san, bundle);
  return bundle;
}

const accepts = async (san: string, pin: IdentityPin): Promise<boolean> => {
  try {
    verifyBundle({ artifact, bundle: await signedAs(san), label: 'channels/production.json' }, policy(pin));
    return true;
  } catch (error) {
    expect((error as Error).message).toMatch(/UNTRUSTED_SIGNER_ERROR/);
    return false;
  }
};

beforeAll(async () => {
  mock = await startMockSigstore();
  const root = parseTrustedRoot(Buffer.from(mock.trustedRoot), 'trusted_root.json');
  policy = (identity) => ({ kind: 'keyless', identity, issuer: GITHUB_ISSUER, trustedRoot: root });
});
afterAll(() => mock.close());

describe('an identity pin is matched exactly', () => {
  it.each([
    [`${WORKFLOW}/promote.yml@refs/heads/main-evil`, 'a branch that starts with the pinned branch'],
    [`${WORKFLOW}/promote.yml@refs/heads/maintenance`, 'a longer branch name'],
    [`https://github.com/evil/x?${PROMOTE}`, 'a SAN that ends with the pin'],
    [`${PROMOTE}/x`, 'a SAN that starts with the pin'],
  ])('refuses %s (%s)', async (san) => {
    expect(await accepts(san, PROMOTE)).toBe(false);
  });

  it('accepts the pinned promotion workflow itself', async () => {
    expect(await accepts(PROMOTE, PROMOTE)).toBe(true);
  });

  it('treats "." in a tag pin as a dot: v1.2.3 refuses v1x2x3 and v1.2.30', async () => {
    expect(await accepts(RELEASE_TAG, RELEASE_TAG)).toBe(true);
    expect(await accepts(`${WORKFLOW}/release.yml@refs/tags/v1x2x3`, RELEASE_TAG)).toBe(false);
    expect(await accepts(`${RELEASE_TAG}0`, RELEASE_TAG)).toBe(false);
  });

  it('accepts an identity holding "+" and "?" that a regular expression would not match', async () => {
    expect(await accepts('alice+ci@example.com', 'alice+ci@example.com')).toBe(true);
    expect(await accepts('https://ci.example/build?job=1', 'https://ci.example/build?job=1')).toBe(true);
    expect(await accepts('aliceeci@example.com', 'alice+ci@example.com')).toBe(false);
  });
});

describe('an identity pattern is anchored at both ends', () => {
  const tags = { pattern: `${WORKFLOW.replace(/[.]/g, '\\.')}/release\\.yml@refs/tags/v[0-9]+\\.[0-9]+\\.[0-9]+` };

  it('accepts every release tag the pattern describes', async () => {
    expect(await accepts(RELEASE_TAG, tags)).toBe(true);
  });

  it('refuses a SAN that only contains a match', async () => {
    expect(await accepts(`${RELEASE_TAG}-evil`, tags)).toBe(false);
    expect(await accepts(`https://evil.example/${RELEASE_TAG}`, tags)).toBe(false);
  });

  it('cannot be escaped by an alternation in the pattern', () => {
    expect(identityMatches({ pattern: 'a|b' }, 'a-evil')).toBe(false);
    expect(identityMatches({ pattern: 'a|b' }, 'b')).toBe(true);
  });
});

describe('bundle consistency', () => {
  it('refuses a bundle whose messageDigest is the digest of other bytes', () => {
    const key = loadSigningKey(makeKeyPair().privatePem, 'k');
    const good = JSON.parse(signWithKey(artifact, key));
    good.messageSignature.messageDigest.digest = createHash('sha256').update('other bytes').digest('base64');
    const keys: TrustPolicy = { kind: 'keys', keys: [createPublicKey(key)] };
    expect(() => verifyBundle({ artifact, bundle: Buffer.from(JSON.stringify(good)), label: 'c' }, keys)).toThrow(
      /message digest is not the SHA-256 of the artifact/,
    );
  });

  it('refuses a keyless bundle whose messageDigest was swapped, though its signature covers the real bytes', async () => {
    const bundle = JSON.parse((await signedAs(PROMOTE)).toString());
    bundle.messageSignature.messageDigest.digest = createHash('sha256').update('x').digest('base64');
    expect(() =>
      verifyBundle({ artifact, bundle: Buffer.from(JSON.stringify(bundle)), label: 'c' }, policy(PROMOTE)),
    ).toThrow(/message digest/);
  });
});

describe('trusted roots are validated strictly', () => {
  const edit = (change: (root: Record<string, Array<Record<string, Record<string, unknown>>>>) => void) => {
    const root = JSON.parse(mock.trustedRoot);
    change(root);
    return Buffer.from(JSON.stringify(root));
  };

  it('refuses a transparency-log key without validFor.start', () => {
    const bytes = edit((r) => {
      delete r.tlogs?.[0]?.publicKey?.validFor;
    });
    expect(() => parseTrustedRoot(bytes, 'trusted_root.json')).toThrow(
      /tlogs\[0\]\.publicKey\.validFor\.start is missing/,
    );
  });

  it('refuses a CA without validFor.start and names it', () => {
    const bytes = edit((r) => {
      delete r.certificateAuthorities?.[0]?.validFor;
    });
    expect(() => parseTrustedRoot(bytes, 'trusted_root.json')).toThrow(
      /certificateAuthorities\[0\]\.validFor\.start is missing/,
    );
  });

  it('refuses a key whose validity ends before it starts', () => {
    const bytes = edit((r) => {
      const key = r.ctlogs?.[0]?.publicKey as { validFor: Record<string, string> };
      key.validFor = { start: '2026-01-02T00:00:00Z', end: '2026-01-01T00:00:00Z' };
    });
    expect(() => parseTrustedRoot(bytes, 'trusted_root.json')).toThrow(
      /ctlogs\[0\]\.publicKey\.validFor\.end .* is before its start/,
    );
  });
});
