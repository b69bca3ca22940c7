import { createPublicKey } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseChannel, ChannelError } from '../../../scripts/lib/channel/index.ts';
import { parseLock, LockError } from '../../../scripts/lib/lock/index.ts';
import { parseApplied, HostError } from '../../../scripts/lib/host/index.ts';
import { evidenceFromBytes } from '../../../scripts/lib/host/channel-evidence.ts';
import {
  emptyTrustedRoot,
  loadSigningKey,
  signWithKey,
  verifyBundle,
  VerificationError,
} from '../../../scripts/lib/signing/index.ts';
import { makeKeyPair } from '../../support/signing-keys.ts';

const pair = makeKeyPair();
const policy = { kind: 'keys' as const, keys: [createPublicKey(pair.publicPem)], trustedRoot: emptyTrustedRoot() };
const validBundle = JSON.parse(signWithKey(Buffer.from('x'), loadSigningKey(pair.privatePem, 'k')));

/** Only our own typed errors may come out: anything else would be a crash of the tick. */
function onlyTyped(run: () => unknown, ...types: (new (...args: never[]) => Error)[]): void {
  try {
    run();
  } catch (error) {
    if (!types.some((t) => error instanceof t)) throw error;
  }
}

describe('random input never crashes parsing or verification', () => {
  it('parseChannel, parseLock and parseApplied on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        onlyTyped(() => parseChannel(bytes, 'f'), ChannelError);
        onlyTyped(() => parseLock(bytes, 'f', 'compose'), LockError);
        onlyTyped(() => parseApplied(bytes, 'f'), HostError);
      }),
      { numRuns: 300 },
    );
  });

  it('parseChannel and parseLock on random JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const bytes = Buffer.from(JSON.stringify(value) ?? 'null');
        onlyTyped(() => parseChannel(bytes, 'f'), ChannelError);
        onlyTyped(() => parseLock(bytes, 'f', 'chart'), LockError);
        onlyTyped(() => parseApplied(bytes, 'f'), HostError);
      }),
      { numRuns: 300 },
    );
  });

  it('verifyBundle on random bytes as the bundle, and on random JSON in bundle fields', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 512 }),
        fc.jsonValue(),
        fc.constantFrom('verificationMaterial', 'messageSignature', 'mediaType'),
        (junk, value, field) => {
          onlyTyped(
            () => verifyBundle({ artifact: Buffer.from('x'), bundle: junk, label: 'c' }, policy),
            VerificationError,
          );
          const mutated = Buffer.from(JSON.stringify({ ...validBundle, [field]: value }));
          onlyTyped(
            () => verifyBundle({ artifact: Buffer.from('x'), bundle: mutated, label: 'c' }, policy),
            VerificationError,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a host turns any random channel and bundle into a refusal reason, never an exception', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 256 }), fc.uint8Array({ maxLength: 256 }), (channel, bundle) => {
        const evidence = evidenceFromBytes(channel, bundle, 'channels/staging.json', policy);
        expect(evidence.ok).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
