// Before signing a commit channel, each first-party image needs a provenance attestation from this repository's CI
// workflow at that very commit; anything else is refused with the reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyImagesProvenance } from '../../../scripts/lib/promotion/verify-provenance.ts';
import type { ProvenancePolicy } from '../../../scripts/lib/promotion/verify-provenance.ts';
import { signKeyless } from '../../../scripts/lib/signing/index.ts';
import { attestationDouble, ciPolicy, COMMIT, DIGEST, provenanceBundle, RIGHT } from '../../support/attestations.ts';
import type { AttestationSpec } from '../../support/attestations.ts';
import { startMockSigstore } from '../../support/mock-sigstore.ts';
import type { MockSigstore } from '../../support/mock-sigstore.ts';

const IMAGES = { HEPHAESTUS_IMAGE_API: `ghcr.io/acme/api@${DIGEST}` };

let mock: MockSigstore;
let policy: ProvenancePolicy;
beforeAll(async () => {
  mock = await startMockSigstore();
  policy = ciPolicy(mock);
});
afterAll(async () => mock.close());

const verify = async (spec: AttestationSpec | undefined) => {
  const source = attestationDouble(spec === undefined ? {} : { [DIGEST]: [await provenanceBundle(mock, spec)] });
  return verifyImagesProvenance(IMAGES, COMMIT, source, policy);
};

describe('first-party image provenance', () => {
  it("passes an attestation by this repository's CI workflow at the promoted commit over the image digest", async () => {
    await expect(verify(RIGHT)).resolves.toBeUndefined();
  });

  it('refuses an image without any attestation', async () => {
    await expect(verify(undefined)).rejects.toMatchObject({
      code: 'provenance',
      message: expect.stringMatching(/HEPHAESTUS_IMAGE_API .*no provenance attestation/),
    });
  });

  it('refuses an attestation from another repository', async () => {
    await expect(verify({ ...RIGHT, repository: 'mallory/platform' })).rejects.toMatchObject({
      code: 'provenance',
      message: expect.stringMatching(
        /signed by "https:\/\/github\.com\/mallory\/platform\/.*", not by "https:\/\/github\.com\/acme\/platform\/\.github\/workflows\/ci\.yml@refs\/heads\/main"/,
      ),
    });
  });

  it('refuses an attestation from another workflow of this repository', async () => {
    await expect(verify({ ...RIGHT, workflow: 'dev.yml' })).rejects.toMatchObject({
      message: expect.stringMatching(/signed by ".*dev\.yml@refs\/heads\/main"/),
    });
  });

  it('refuses an attestation built at another commit', async () => {
    await expect(verify({ ...RIGHT, commit: 'd'.repeat(40) })).rejects.toMatchObject({
      message: expect.stringMatching(new RegExp(`built at commit ${'d'.repeat(40)}, not at ${COMMIT}`)),
    });
  });

  it('refuses an attestation whose statement names another digest', async () => {
    await expect(verify({ ...RIGHT, digest: `sha256:${'2'.repeat(64)}` })).rejects.toMatchObject({
      message: expect.stringMatching(/statement subjects do not include sha256:1{64}/),
    });
  });

  it('refuses an attestation that is not SLSA provenance', async () => {
    await expect(verify({ ...RIGHT, predicateType: 'https://spdx.dev/Document' })).rejects.toMatchObject({
      message: expect.stringMatching(/not SLSA provenance v1/),
    });
  });

  it('refuses a plain message signature: provenance is an in-toto attestation', async () => {
    const plain = Buffer.from(
      await signKeyless(Buffer.from(DIGEST), {
        fulcioURL: mock.fulcioURL,
        rekorURL: mock.rekorURL,
        identityToken: mock.token('https://github.com/acme/platform/.github/workflows/ci.yml@refs/heads/main'),
      }),
    );
    await expect(
      verifyImagesProvenance(IMAGES, COMMIT, attestationDouble({ [DIGEST]: [plain] }), policy),
    ).rejects.toMatchObject({ message: expect.stringMatching(/no DSSE envelope/) });
  });

  it('passes when one of several attestations is the right one', async () => {
    const source = attestationDouble({
      [DIGEST]: [
        await provenanceBundle(mock, { ...RIGHT, repository: 'mallory/platform' }),
        await provenanceBundle(mock, RIGHT),
      ],
    });
    await expect(verifyImagesProvenance(IMAGES, COMMIT, source, policy)).resolves.toBeUndefined();
    expect(source.lookups).toEqual([DIGEST]);
  });
});
