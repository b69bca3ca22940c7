// What verifyBundle() accepts at the edges of a host's trust: the kind of signature the host pins, bundles without a key
// hint, the size limit, the media types and the trusted root. Each test protects one decision a mutant changed.
import { createPublicKey, sign as signBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageSignatureBundleBuilder, RekorWitness } from '@sigstore/sign';
import { bundleToJSON } from '@sigstore/bundle';
import {
  emptyTrustedRoot,
  keyHint,
  loadSigningKey,
  parseTrustedRoot,
  signKeyless,
  signWithKey,
  verifyBundle,
  VerificationError,
} from '../../../scripts/lib/signing/index.ts';
import type { TrustedRoot, TrustPolicy } from '../../../scripts/lib/signing/index.ts';
import { MAX_ARTIFACT_BYTES } from '../../../scripts/lib/signing/read-bounded.ts';
import { GITHUB_ISSUER, startMockSigstore } from '../../support/mock-sigstore.ts';
import type { MockSigstore } from '../../support/mock-sigstore.ts';
import { makeKeyPair } from '../../support/signing-keys.ts';
import { thrown } from '../../support/thrown.ts';

const PROMOTE = 'https://github.com/acme/platform/.github/workflows/promote.yml@refs/heads/main';
const artifact = Buffer.from('{"schema":2,"environment":"production","version":3}\n');
const first = makeKeyPair();
const second = makeKeyPair();
const firstKey = loadSigningKey(first.privatePem, 'first.key');
const keys = (...pems: string[]): TrustPolicy => ({ kind: 'keys', keys: pems.map((pem) => createPublicKey(pem)) });
const signedByFirst = Buffer.from(signWithKey(artifact, firstKey));

let mock: MockSigstore;
let mockRoot: TrustedRoot;
let keyless: Buffer;
/** A key bundle carrying an entry of the mock transparency log, as `cosign sign-blob --key` uploads it. */
let keyWithLogEntry: Buffer;

beforeAll(async () => {
  mock = await startMockSigstore();
  mockRoot = parseTrustedRoot(Buffer.from(mock.trustedRoot), 'trusted_root.json');
  keyless = Buffer.from(
    await signKeyless(artifact, {
      fulcioURL: mock.fulcioURL,
      rekorURL: mock.rekorURL,
      identityToken: mock.token(PROMOTE),
    }),
  );
  const builder = new MessageSignatureBundleBuilder({
    signer: {
      sign: async (data) => ({
        signature: signBytes('sha256', data, firstKey),
        key: { $case: 'publicKey', publicKey: first.publicPem, hint: keyHint(first.publicPem) },
      }),
    },
    witnesses: [new RekorWitness({ rekorBaseURL: mock.rekorURL })],
  });
  keyWithLogEntry = Buffer.from(
    JSON.stringify({
      ...(bundleToJSON(await builder.create({ data: artifact })) as object),
      mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    }),
  );
});
afterAll(() => mock.close());

const verify = (bundle: Buffer, policy: TrustPolicy, bytes: Uint8Array = artifact) =>
  verifyBundle({ artifact: bytes, bundle, label: 'channels/production.json' }, policy);
const edited = (bundle: Buffer, edit: (json: Record<string, any>) => void): Buffer => {
  const json = JSON.parse(bundle.toString());
  edit(json);
  return Buffer.from(JSON.stringify(json));
};
/** The same bundle JSON followed by spaces up to exactly `size` bytes (JSON allows trailing white space). */
const paddedTo = (bundle: Buffer, size: number) =>
  Buffer.concat([bundle, Buffer.alloc(size - bundle.byteLength, 0x20)]);

describe('a host that trusts public keys', () => {
  it('refuses a certificate-signed bundle, even one whose CA its trusted root holds', () => {
    const error = thrown(VerificationError, () => verify(keyless, { ...keys(first.publicPem), trustedRoot: mockRoot }));
    expect([error.code, error.message]).toEqual([
      'signature',
      'Cannot verify "channels/production.json": bundle is signed with a certificate, but this host trusts public keys',
    ]);
    expect(thrown(VerificationError, () => verify(keyless, keys(first.publicPem))).message).toMatch(
      /signed with a certificate, but this host trusts public keys/,
    );
  });

  it('names the key a bundle was signed with in the signer', () => {
    expect(verify(signedByFirst, keys(first.publicPem))).toEqual({ signer: `key:${keyHint(first.publicPem)}` });
  });
});

describe('a host that trusts a keyless identity', () => {
  it('refuses a public-key bundle, even signed by a key it could know', () => {
    const error = thrown(VerificationError, () =>
      verify(signedByFirst, { kind: 'keyless', identity: PROMOTE, issuer: GITHUB_ISSUER, trustedRoot: mockRoot }),
    );
    expect(error.message).toBe(
      'Cannot verify "channels/production.json": bundle is signed with a public key, but this host trusts a keyless identity',
    );
  });

  it('reports the identity and issuer that signed', () => {
    expect(
      verify(keyless, { kind: 'keyless', identity: PROMOTE, issuer: GITHUB_ISSUER, trustedRoot: mockRoot }),
    ).toEqual({ signer: `${PROMOTE} (${GITHUB_ISSUER})` });
  });

  it('names the SAN it refused and the pin it expected', () => {
    const error = thrown(VerificationError, () =>
      verify(keyless, { kind: 'keyless', identity: `${PROMOTE}x`, issuer: GITHUB_ISSUER, trustedRoot: mockRoot }),
    );
    expect(error.message).toBe(
      `Cannot verify "channels/production.json": UNTRUSTED_SIGNER_ERROR: certificate identity "${PROMOTE}" does not match "${PROMOTE}x"`,
    );
  });
});

describe('bundles without a key hint', () => {
  const noHint = edited(signedByFirst, (json) => {
    json.verificationMaterial.publicKey.hint = '';
  });
  const hintAbsent = edited(signedByFirst, (json) => {
    delete json.verificationMaterial.publicKey.hint;
  });

  it('a host with a single trusted key verifies them with that key', () => {
    expect(verify(noHint, keys(first.publicPem))).toEqual({ signer: 'key:' });
    expect(verify(hintAbsent, keys(first.publicPem))).toEqual({ signer: 'key:' });
  });

  it('a host with a single trusted key still refuses one signed by another key', () => {
    expect(thrown(VerificationError, () => verify(noHint, keys(second.publicPem))).message).toMatch(/SIGNATURE_ERROR/);
  });

  it('a host with several trusted keys refuses them, even signed by its first key (no guessing which key)', () => {
    const error = thrown(VerificationError, () => verify(noHint, keys(first.publicPem, second.publicPem)));
    expect(error.message).toBe(
      'Cannot verify "channels/production.json": signed by key "", which is not a trusted key',
    );
  });

  it('a bundle naming an unknown hint is refused by a single-key host too', () => {
    const wrongHint = edited(signedByFirst, (json) => {
      json.verificationMaterial.publicKey.hint = keyHint(second.publicPem);
    });
    expect(thrown(VerificationError, () => verify(wrongHint, keys(first.publicPem))).message).toBe(
      `Cannot verify "channels/production.json": signed by key "${keyHint(second.publicPem)}", which is not a trusted key`,
    );
  });
});

describe('the 1 MiB limit', () => {
  it('refuses a bundle over 1 MiB before parsing it, naming the bundle file', () => {
    const error = thrown(VerificationError, () =>
      verify(paddedTo(signedByFirst, MAX_ARTIFACT_BYTES + 1), keys(first.publicPem)),
    );
    expect(error.code).toBe('too-large');
    expect(error.message).toBe(
      `Cannot read "channels/production.json.sigstore.json": ${MAX_ARTIFACT_BYTES + 1} bytes is over the limit of ${MAX_ARTIFACT_BYTES} bytes`,
    );
  });

  it('accepts a bundle of exactly 1 MiB', () => {
    expect(verify(paddedTo(signedByFirst, MAX_ARTIFACT_BYTES), keys(first.publicPem)).signer).toBe(
      `key:${keyHint(first.publicPem)}`,
    );
  });

  it('accepts an artifact of exactly 1 MiB and refuses one byte more, naming the artifact', () => {
    const exact = Buffer.alloc(MAX_ARTIFACT_BYTES, 0x20);
    expect(verify(Buffer.from(signWithKey(exact, firstKey)), keys(first.publicPem), exact).signer).toMatch(/^key:/);
    const over = Buffer.alloc(MAX_ARTIFACT_BYTES + 1, 0x20);
    const error = thrown(VerificationError, () => verify(signedByFirst, keys(first.publicPem), over));
    expect([error.code, error.message]).toEqual([
      'too-large',
      `Cannot read "channels/production.json": ${MAX_ARTIFACT_BYTES + 1} bytes is over the limit of ${MAX_ARTIFACT_BYTES} bytes`,
    ]);
  });

  it('the limit is 1 MiB', () => {
    expect(MAX_ARTIFACT_BYTES).toBe(1_048_576);
  });
});

describe('bundle formats', () => {
  it.each([
    ['v0.3', 'application/vnd.dev.sigstore.bundle.v0.3+json'],
    ['v0.3 under its legacy media type', 'application/vnd.dev.sigstore.bundle+json;version=0.3'],
  ])('accepts a %s bundle', (_name, mediaType) => {
    const bundle = edited(signedByFirst, (json) => {
      json.mediaType = mediaType;
    });
    expect(verify(bundle, keys(first.publicPem)).signer).toMatch(/^key:/);
  });

  it('refuses a v0.1 bundle and names its media type', () => {
    const v01 = edited(keyless, (json) => {
      json.mediaType = 'application/vnd.dev.sigstore.bundle+json;version=0.1';
    });
    const error = thrown(VerificationError, () =>
      verify(v01, { kind: 'keyless', identity: PROMOTE, issuer: GITHUB_ISSUER, trustedRoot: mockRoot }),
    );
    expect(error.message).toBe(
      'Cannot verify "channels/production.json": bundle media type "application/vnd.dev.sigstore.bundle+json;version=0.1" is not v0.2 or v0.3',
    );
  });

  it('refuses a message digest of another algorithm, naming it', () => {
    const sha384 = edited(signedByFirst, (json) => {
      json.messageSignature.messageDigest.algorithm = 'SHA2_384';
    });
    expect(thrown(VerificationError, () => verify(sha384, keys(first.publicPem))).message).toBe(
      'Cannot verify "channels/production.json": bundle message digest uses algorithm 2, not SHA2_256',
    );
  });

  it('refuses a message digest of other bytes', () => {
    const other = edited(signedByFirst, (json) => {
      json.messageSignature.messageDigest.digest = Buffer.alloc(32).toString('base64');
    });
    expect(thrown(VerificationError, () => verify(other, keys(first.publicPem))).message).toBe(
      'Cannot verify "channels/production.json": bundle message digest is not the SHA-256 of the artifact',
    );
  });

  it('refuses bytes that are not JSON as "not a Sigstore bundle", keeping the cause', () => {
    const error = thrown(VerificationError, () => verify(Buffer.from('{'), keys(first.publicPem)));
    expect(error.message).toMatch(
      /^Cannot verify "channels\/production\.json": bundle is not a Sigstore bundle \(.+\)$/,
    );
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(error.details).toEqual({ file: 'channels/production.json' });
  });

  it("reports sigstore's own refusal with its code", () => {
    const badSignature = edited(signedByFirst, (json) => {
      const signature = Buffer.from(json.messageSignature.signature, 'base64');
      signature[10] = (signature[10] ?? 0) ^ 1;
      json.messageSignature.signature = signature.toString('base64');
    });
    expect(thrown(VerificationError, () => verify(badSignature, keys(first.publicPem))).message).toMatch(
      /^Cannot verify "channels\/production\.json": SIGNATURE_ERROR: /,
    );
  });
});

describe('which trusted root checks the log entries of a key bundle', () => {
  it('without a configured root, a key bundle with no log entry needs none', () => {
    expect(verify(signedByFirst, keys(first.publicPem)).signer).toMatch(/^key:/);
  });

  it("the configured root: a key bundle whose log entry that root's log signed is accepted", () => {
    expect(verify(keyWithLogEntry, { ...keys(first.publicPem), trustedRoot: mockRoot }).signer).toBe(
      `key:${keyHint(first.publicPem)}`,
    );
  });

  it('without a configured root, a log entry is checked against public good, which did not sign ours', () => {
    expect(thrown(VerificationError, () => verify(keyWithLogEntry, keys(first.publicPem))).message).toMatch(
      /TLOG_INCLUSION_PROMISE_ERROR/,
    );
  });

  it('an empty root refuses a log entry it cannot check', () => {
    expect(
      thrown(VerificationError, () =>
        verify(keyWithLogEntry, { ...keys(first.publicPem), trustedRoot: emptyTrustedRoot() }),
      ).message,
    ).toMatch(/TLOG_INCLUSION_PROMISE_ERROR/);
  });
});

describe('refusals that come from sigstore itself', () => {
  it('a certificate from another OIDC issuer is refused by the issuer the host pins, naming both', async () => {
    const forged = Buffer.from(
      await signKeyless(artifact, {
        fulcioURL: mock.fulcioURL,
        rekorURL: mock.rekorURL,
        identityToken: mock.token(PROMOTE, 'https://evil.example/oidc'),
      }),
    );
    const error = thrown(VerificationError, () =>
      verify(forged, { kind: 'keyless', identity: PROMOTE, issuer: GITHUB_ISSUER, trustedRoot: mockRoot }),
    );
    expect(error.message).toBe(
      `Cannot verify "channels/production.json": UNTRUSTED_SIGNER_ERROR: invalid certificate extension - expected issuer=${GITHUB_ISSUER}, got issuer=https://evil.example/oidc`,
    );
  });

  it('an error without a code is reported as its message alone', () => {
    const broken = {} as TrustedRoot;
    const error = thrown(VerificationError, () =>
      verify(signedByFirst, { ...keys(first.publicPem), trustedRoot: broken }),
    );
    expect(error.message).toMatch(/^Cannot verify "channels\/production\.json": Cannot read properties of undefined/);
    expect(error.cause).toBeInstanceOf(TypeError);
  });
});
