import { createHash, createPublicKey, sign as signBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageSignatureBundleBuilder, RekorWitness } from '@sigstore/sign';
import { bundleToJSON } from '@sigstore/bundle';
import {
  keyHint,
  loadSigningKey,
  signWithKey,
  parseTrustedRoot,
  publicGoodTrustedRoot,
  signKeyless,
  verifyBundle,
} from '../../../scripts/lib/signing/index.ts';
import type { TrustPolicy } from '../../../scripts/lib/signing/index.ts';
import { GITHUB_ISSUER, startMockSigstore } from '../../support/mock-sigstore.ts';
import type { MockSigstore } from '../../support/mock-sigstore.ts';
import { makeKeyPair } from '../../support/signing-keys.ts';

const PROMOTE = 'https://github.com/acme/platform/.github/workflows/promote.yml@refs/heads/main';
const RELEASE = 'https://github.com/acme/platform/.github/workflows/release.yml@refs/heads/main';
const channel = Buffer.from('{"schema":2,"environment":"production","version":3}\n');

let mock: MockSigstore;
let other: MockSigstore;
let bundle: Buffer;
let policy: (identity?: string, issuer?: string) => TrustPolicy;

beforeAll(async () => {
  [mock, other] = await Promise.all([startMockSigstore(), startMockSigstore()]);
  bundle = Buffer.from(
    await signKeyless(channel, {
      fulcioURL: mock.fulcioURL,
      rekorURL: mock.rekorURL,
      identityToken: mock.token(PROMOTE),
    }),
  );
  const root = parseTrustedRoot(Buffer.from(mock.trustedRoot), 'trusted_root.json');
  policy = (identity = PROMOTE, issuer = GITHUB_ISSUER) => ({ kind: 'keyless', identity, issuer, trustedRoot: root });
});
afterAll(async () => {
  await Promise.all([mock.close(), other.close()]);
});

const check =
  (b: Buffer, p: TrustPolicy, artifact: Buffer = channel) =>
  () =>
    verifyBundle({ artifact, bundle: b, label: 'channels/production.json' }, p);

describe('keyless verification against a trusted root of our own (@sigstore/mock CA and logs, offline)', () => {
  it('accepts the promotion workflow identity with the GitHub issuer', () => {
    expect(check(bundle, policy())().signer).toBe(`${PROMOTE} (${GITHUB_ISSUER})`);
  });

  it('refuses another workflow of the same repository (wrong SAN)', () => {
    expect(check(bundle, policy(RELEASE))).toThrow(/UNTRUSTED_SIGNER_ERROR/);
  });

  it('refuses a SAN that only starts with the pinned identity', () => {
    expect(check(bundle, policy(`${PROMOTE}x`))).toThrow(/UNTRUSTED_SIGNER_ERROR/);
  });

  it('refuses the right SAN from another OIDC issuer', async () => {
    const forged = Buffer.from(
      await signKeyless(channel, {
        fulcioURL: mock.fulcioURL,
        rekorURL: mock.rekorURL,
        identityToken: mock.token(PROMOTE, 'https://evil.example/oidc'),
      }),
    );
    expect(check(forged, policy())).toThrow(/UNTRUSTED_SIGNER_ERROR/);
  });

  it('refuses a certificate from a CA the trusted root does not hold', async () => {
    const foreign = Buffer.from(
      await signKeyless(channel, {
        fulcioURL: other.fulcioURL,
        rekorURL: other.rekorURL,
        identityToken: other.token(PROMOTE),
      }),
    );
    expect(check(foreign, policy())).toThrow(/Cannot verify/);
  });

  it('refuses tampered bytes under a valid certificate', () => {
    expect(check(bundle, policy(), Buffer.from(channel.toString().replace('3', '4')))).toThrow(
      /message digest is not the SHA-256/,
    );
  });

  it('refuses tampered bytes whose digest the attacker also wrote into the bundle (the signature does not cover them)', () => {
    const tampered = Buffer.from(channel.toString().replace('3', '4'));
    const json = JSON.parse(bundle.toString());
    json.messageSignature.messageDigest.digest = createHash('sha256').update(tampered).digest('base64');
    expect(check(Buffer.from(JSON.stringify(json)), policy(), tampered)).toThrow(/SIGNATURE_ERROR|TLOG/);
  });

  it('refuses a public-key bundle when the host pins a keyless identity', () => {
    const pair = makeKeyPair();
    expect(check(Buffer.from(signWithKey(channel, loadSigningKey(pair.privatePem, 'k'))), policy())).toThrow(
      /public key/,
    );
  });

  it('refuses our mock bundle under the public-good root from the TUF seed', () => {
    expect(check(bundle, { ...policy(), trustedRoot: publicGoodTrustedRoot() })).toThrow(/Cannot verify/);
  });
});

describe('bundles in the shape `cosign sign-blob --bundle` writes (new format, v0.3; fixtures built from the documented format, no cosign binary here)', () => {
  it('accepts a keyless v0.3 bundle with a single leaf certificate and a Rekor entry', () => {
    const v02 = JSON.parse(bundle.toString());
    const leaf = v02.verificationMaterial.x509CertificateChain.certificates[0];
    const cosign = {
      mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
      verificationMaterial: {
        certificate: leaf,
        tlogEntries: v02.verificationMaterial.tlogEntries,
        timestampVerificationData: {},
      },
      messageSignature: v02.messageSignature,
    };
    expect(check(Buffer.from(JSON.stringify(cosign)), policy())().signer).toContain(PROMOTE);
  });

  it('accepts a `--key` v0.3 bundle with the key hint and a Rekor entry, trusting the key and the log', async () => {
    const pair = makeKeyPair();
    const key = loadSigningKey(pair.privatePem, 'cosign.key');
    const builder = new MessageSignatureBundleBuilder({
      signer: {
        sign: async (data) => ({
          signature: signBytes('sha256', data, key),
          key: { $case: 'publicKey', publicKey: pair.publicPem, hint: keyHint(pair.publicPem) },
        }),
      },
      witnesses: [new RekorWitness({ rekorBaseURL: mock.rekorURL })],
    });
    const json = bundleToJSON(await builder.create({ data: channel })) as Record<string, unknown>;
    const cosign = Buffer.from(JSON.stringify({ ...json, mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json' }));
    expect(JSON.parse(cosign.toString()).verificationMaterial.tlogEntries).toHaveLength(1);
    const root = parseTrustedRoot(Buffer.from(mock.trustedRoot), 'trusted_root.json');
    expect(
      verifyBundle(
        { artifact: channel, bundle: cosign, label: 'c' },
        { kind: 'keys', keys: [createPublicKey(pair.publicPem)], trustedRoot: root },
      ).signer,
    ).toBe(`key:${keyHint(pair.publicPem)}`);
  });
});
