import { createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCatalogue } from '../../../scripts/lib/catalogue/index.ts';
import { parseBuilt, prepareReleaseLock } from '../../../scripts/lib/lock/index.ts';
import { loadSigningKey, signWithKey } from '../../../scripts/lib/signing/sign-with-key.ts';
import { makeKeyPair } from '../../support/signing-keys.ts';

const catalogue = parseCatalogue(
  readFileSync(join(import.meta.dirname, '../../../examples/platform/gitops/manifests/images.yaml'), 'utf8'),
  'gitops/manifests/images.yaml',
);
const commit = 'c'.repeat(40);
const built = Object.fromEntries(
  catalogue.images.map((e, i) => [e.name, `127.0.0.1:5000/${e.image}@sha256:${String(i).padStart(64, '0')}`]),
);

describe('prepareReleaseLock (the code behind prepare-release-lock.ts --produce and the Dagger releaseLock)', () => {
  it('returns the lock, its exact bytes and a bundle signing those bytes', async () => {
    const pair = makeKeyPair();
    const key = loadSigningKey(pair.privatePem, 'test.key');
    const prepared = await prepareReleaseLock({
      release: 'v1.0.0',
      commit,
      catalogue,
      built,
      sign: async (bytes) => signWithKey(bytes, key),
    });
    expect(JSON.parse(prepared.bytes.toString('utf8'))).toEqual(prepared.lock);
    const bundle = JSON.parse(prepared.bundle ?? '');
    const signature = Buffer.from(bundle.messageSignature.signature, 'base64');
    expect(verify('sha256', prepared.bytes, createPublicKey(pair.publicPem), signature)).toBe(true);
  });

  it('refuses a release or commit of the wrong form before anything else', async () => {
    await expect(prepareReleaseLock({ release: '1.0', commit, catalogue, built })).rejects.toThrow(
      'Cannot produce lock: release "1.0" is not vX.Y.Z',
    );
    await expect(prepareReleaseLock({ release: 'v1.0.0', commit: 'HEAD', catalogue, built })).rejects.toThrow(
      'Cannot produce lock: commit "HEAD" is not 40 lower-case hex digits',
    );
  });
});

describe('parseBuilt', () => {
  it('names every bad field of the built digests', () => {
    expect(() => parseBuilt('{"api":"pharos/api:latest"}', 'built.json')).toThrow(
      /built\.json: api: expected <repository>@sha256:<64 hex>/,
    );
    expect(() => parseBuilt('nope', 'built.json')).toThrow(/^Cannot read built digests "built\.json": not JSON/);
  });
});
