import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MessageSignatureBundleBuilder } from '@sigstore/sign';
import { bundleToJSON } from '@sigstore/bundle';
import {
  emptyTrustedRoot,
  keyHint,
  loadSigningKey,
  signWithKey,
  verifyBundle,
  VerificationError,
} from '../../../scripts/lib/signing/index.ts';
import type { TrustPolicy } from '../../../scripts/lib/signing/index.ts';
import { makeKeyPair } from '../../support/signing-keys.ts';
import { thrown } from '../../support/thrown.ts';

const pair = makeKeyPair();
const key = loadSigningKey(pair.privatePem, 'promote.key');
const trust = (pems: string[]): TrustPolicy => ({
  kind: 'keys',
  keys: pems.map((p) => createPublicKey(p)),
  trustedRoot: emptyTrustedRoot(),
});
const channel = Buffer.from('{"schema":2,"environment":"staging","version":1}\n');

describe('signWithKey', () => {
  it('writes a v0.3 message-signature bundle whose key hint is base64(SHA-256(SPKI DER)), as openssl computes it', () => {
    const bundle = JSON.parse(signWithKey(channel, key));
    expect(bundle.mediaType).toBe('application/vnd.dev.sigstore.bundle.v0.3+json');
    const dir = mkdtempSync(join(tmpdir(), 'hint-'));
    writeFileSync(join(dir, 'k.pub'), pair.publicPem);
    const der = execFileSync('openssl', ['pkey', '-pubin', '-in', join(dir, 'k.pub'), '-outform', 'DER']);
    const expected = execFileSync('openssl', ['dgst', '-sha256', '-binary'], { input: der }).toString('base64');
    expect(bundle.verificationMaterial.publicKey.hint).toBe(expected);
    expect(keyHint(pair.publicPem)).toBe(expected);
  });

  it('refuses a key that is not P-256', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    expect(() => loadSigningKey(rsa, 'rsa.key')).toThrow(/rsa\.key.*P-256/);
    expect(() => loadSigningKey(p384, 'p384.key')).toThrow(/P-256/);
    expect(() => loadSigningKey('not a key', 'junk.key')).toThrow(/junk\.key/);
  });
});

describe('verifyBundle with public keys', () => {
  const bundle = Buffer.from(signWithKey(channel, key));

  it('accepts the exact bytes signed by a trusted key', () => {
    expect(
      verifyBundle({ artifact: channel, bundle, label: 'channels/staging.json' }, trust([pair.publicPem])).signer,
    ).toBe(`key:${keyHint(pair.publicPem)}`);
  });

  it('refuses bytes changed by one bit', () => {
    const tampered = Buffer.from(channel);
    tampered[5] = (tampered[5] ?? 0) ^ 1;
    const error = thrown(VerificationError, () =>
      verifyBundle({ artifact: tampered, bundle, label: 'channels/staging.json' }, trust([pair.publicPem])),
    );
    expect(error.code).toBe('signature');
    expect(error.message).toMatch(/channels\/staging\.json/);
  });

  it('refuses a bundle signed by a key the host does not trust', () => {
    const other = makeKeyPair();
    expect(
      thrown(VerificationError, () => verifyBundle({ artifact: channel, bundle, label: 'c' }, trust([other.publicPem])))
        .message,
    ).toMatch(/not a trusted key/);
  });

  it('accepts either key while two are trusted (rotation)', () => {
    const next = makeKeyPair();
    const signedByNext = Buffer.from(signWithKey(channel, loadSigningKey(next.privatePem, 'next')));
    const policy = trust([pair.publicPem, next.publicPem]);
    expect(() => verifyBundle({ artifact: channel, bundle, label: 'c' }, policy)).not.toThrow();
    expect(() => verifyBundle({ artifact: channel, bundle: signedByNext, label: 'c' }, policy)).not.toThrow();
  });

  it('accepts a v0.2 bundle written by @sigstore/sign', async () => {
    const builder = new MessageSignatureBundleBuilder({
      signer: {
        sign: async (data) => ({
          signature: (await import('node:crypto')).sign('sha256', data, key),
          key: { $case: 'publicKey', publicKey: pair.publicPem, hint: keyHint(pair.publicPem) },
        }),
      },
      witnesses: [],
    });
    const v02 = Buffer.from(JSON.stringify(bundleToJSON(await builder.create({ data: channel }))));
    expect(JSON.parse(v02.toString()).mediaType).toBe('application/vnd.dev.sigstore.bundle+json;version=0.2');
    expect(() => verifyBundle({ artifact: channel, bundle: v02, label: 'c' }, trust([pair.publicPem]))).not.toThrow();
  });

  it('refuses a DSSE bundle, which does not bind the artifact bytes', () => {
    const dsse = JSON.parse(bundle.toString());
    delete dsse.messageSignature;
    dsse.dsseEnvelope = {
      payload: channel.toString('base64'),
      payloadType: 'application/json',
      signatures: [{ sig: 'AAAA', keyid: '' }],
    };
    expect(
      thrown(VerificationError, () =>
        verifyBundle(
          { artifact: channel, bundle: Buffer.from(JSON.stringify(dsse)), label: 'c' },
          trust([pair.publicPem]),
        ),
      ).message,
    ).toMatch(/DSSE/);
  });

  it('refuses a bundle with an unknown media type', () => {
    const v9 = { ...JSON.parse(bundle.toString()), mediaType: 'application/vnd.dev.sigstore.bundle.v0.9+json' };
    expect(
      thrown(VerificationError, () =>
        verifyBundle(
          { artifact: channel, bundle: Buffer.from(JSON.stringify(v9)), label: 'c' },
          trust([pair.publicPem]),
        ),
      ).code,
    ).toBe('signature');
  });

  it('refuses an artifact over 1 MiB before verifying it', () => {
    const big = Buffer.alloc(1024 * 1024 + 1, 0x20);
    expect(
      thrown(VerificationError, () => verifyBundle({ artifact: big, bundle, label: 'c' }, trust([pair.publicPem])))
        .code,
    ).toBe('too-large');
  });
});
