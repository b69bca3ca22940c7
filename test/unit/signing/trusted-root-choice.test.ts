// Which trusted root checks a key bundle when the host configures none: public good's (from the TUF seed) for a bundle
// with a log entry, no log at all for one without. Public good's log cannot sign anything offline, so this file puts a
// stand-in where publicGoodTrustedRoot() is: the root of our own mock log, or one that refuses to be loaded.
import { createPublicKey, sign as signBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MessageSignatureBundleBuilder, RekorWitness } from '@sigstore/sign';
import { bundleToJSON } from '@sigstore/bundle';
import type { TrustedRoot } from '../../../scripts/lib/signing/trusted-root.ts';
import {
  keyHint,
  loadSigningKey,
  parseTrustedRoot,
  signWithKey,
  verifyBundle,
} from '../../../scripts/lib/signing/index.ts';
import { startMockSigstore } from '../../support/mock-sigstore.ts';
import type { MockSigstore } from '../../support/mock-sigstore.ts';
import { makeKeyPair } from '../../support/signing-keys.ts';

const publicGood = vi.hoisted(() => ({ stand: undefined as (() => TrustedRoot) | undefined }));
vi.mock('../../../scripts/lib/signing/trusted-root.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../scripts/lib/signing/trusted-root.ts')>();
  return { ...real, publicGoodTrustedRoot: () => (publicGood.stand ?? real.publicGoodTrustedRoot)() };
});

const artifact = Buffer.from('{"schema":2,"environment":"production","version":3}\n');
const pair = makeKeyPair();
const key = loadSigningKey(pair.privatePem, 'release.key');
const hostKeys = { kind: 'keys' as const, keys: [createPublicKey(pair.publicPem)] };

let mock: MockSigstore;
let logged: Buffer;

beforeAll(async () => {
  mock = await startMockSigstore();
  const builder = new MessageSignatureBundleBuilder({
    signer: {
      sign: async (data) => ({
        signature: signBytes('sha256', data, key),
        key: { $case: 'publicKey', publicKey: pair.publicPem, hint: keyHint(pair.publicPem) },
      }),
    },
    witnesses: [new RekorWitness({ rekorBaseURL: mock.rekorURL })],
  });
  logged = Buffer.from(
    JSON.stringify({
      ...(bundleToJSON(await builder.create({ data: artifact })) as object),
      mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    }),
  );
});
afterAll(() => mock.close());

describe('a host that trusts keys and configures no trusted root', () => {
  it("checks a key bundle's log entry against public good's root", () => {
    publicGood.stand = () => parseTrustedRoot(Buffer.from(mock.trustedRoot), 'stand-in for public good');
    expect(verifyBundle({ artifact, bundle: logged, label: 'release-v1.2.3.json' }, hostKeys).signer).toBe(
      `key:${keyHint(pair.publicPem)}`,
    );
  });

  it('never loads public good for a key bundle without a log entry', () => {
    publicGood.stand = () => {
      throw new Error('public good root loaded');
    };
    const plain = Buffer.from(signWithKey(artifact, key));
    expect(verifyBundle({ artifact, bundle: plain, label: 'release-v1.2.3.json' }, hostKeys).signer).toBe(
      `key:${keyHint(pair.publicPem)}`,
    );
  });
});
