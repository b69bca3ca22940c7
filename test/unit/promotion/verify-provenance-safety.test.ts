// Decisions of the provenance check that mutation testing showed no earlier test protected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attestationProblem, verifyImagesProvenance } from '../../../scripts/lib/promotion/verify-provenance.ts';
import type { ProvenancePolicy } from '../../../scripts/lib/promotion/verify-provenance.ts';
import { attestationDouble, ciPolicy, COMMIT, DIGEST, provenanceBundle, RIGHT } from '../../support/attestations.ts';
import type { AttestationSpec } from '../../support/attestations.ts';
import { startMockSigstore } from '../../support/mock-sigstore.ts';
import type { MockSigstore } from '../../support/mock-sigstore.ts';

const OTHER = `sha256:${'2'.repeat(64)}`;

let mock: MockSigstore;
let policy: ProvenancePolicy;
beforeAll(async () => {
  mock = await startMockSigstore();
  policy = ciPolicy(mock);
});
afterAll(async () => mock.close());

const problem = async (spec: Partial<AttestationSpec>, p: Partial<ProvenancePolicy> = {}) =>
  attestationProblem(await provenanceBundle(mock, { ...RIGHT, ...spec }), DIGEST, COMMIT, { ...policy, ...p });

describe('attestationProblem(): whose provenance counts', () => {
  it('accepts one attestation naming several images, this one among them', async () => {
    expect(await problem({ otherSubjects: [OTHER] })).toBeUndefined();
  });

  it('accepts the in-toto Statement v0.1 type as well as v1', async () => {
    expect(await problem({ statementType: 'https://in-toto.io/Statement/v0.1' })).toBeUndefined();
  });

  it('refuses a certificate from another OIDC issuer, even for the right workflow', async () => {
    expect(await problem({ issuer: 'https://accounts.example.com' })).toMatch(/^signature does not verify \(/);
  });

  it('refuses a DSSE payload that is not an in-toto statement', async () => {
    expect(await problem({ payloadType: 'application/json' })).toBe(
      'payload type "application/json" is not application/vnd.in-toto+json',
    );
  });

  it('refuses a certificate without a source repository, or naming another one (a fork running the same workflow path)', async () => {
    expect(await problem({ sourceRepository: null })).toBe(
      'built from repository "(none)", not https://github.com/acme/platform',
    );
    expect(await problem({ sourceRepository: 'mallory/platform' })).toBe(
      'built from repository "https://github.com/mallory/platform", not https://github.com/acme/platform',
    );
  });

  it('refuses a certificate without a source commit', async () => {
    expect(await problem({ sha: null })).toBe(`built at commit (none), not at ${COMMIT}`);
  });

  it.each([
    ['a statement type with a suffix', { statementType: 'https://in-toto.io/Statement/v1.1' }],
    ['a statement type with a prefix', { statementType: 'x-https://in-toto.io/Statement/v1' }],
  ])('refuses %s as unreadable', async (_what, spec) => {
    expect(await problem(spec)).toMatch(/^in-toto statement is unreadable \(/);
  });

  it('refuses a payload that is not JSON as unreadable, on one line', async () => {
    const why = await problem({ payload: 'not json' });
    expect(why).toMatch(/^in-toto statement is unreadable \(.+\)$/);
    expect(why).toContain('is not valid JSON');
    expect(why).not.toContain('\n');
  });

  it.each([
    ['https://slsa.dev/provenance/v10'],
    ['x-https://slsa.dev/provenance/v1'],
    ['https://slsa.dev/provenance/v0.2'],
  ])('refuses the predicate type %s', async (predicateType) => {
    expect(await problem({ predicateType })).toBe(`predicate type "${predicateType}" is not SLSA provenance v1`);
  });

  it('refuses a subject list without this image, and a digest without an algorithm', async () => {
    expect(await problem({ digest: OTHER })).toBe(`statement subjects do not include ${DIGEST}`);
    const bytes = await provenanceBundle(mock, RIGHT);
    expect(attestationProblem(bytes, '1'.repeat(64), COMMIT, policy)).toBe(
      `statement subjects do not include ${'1'.repeat(64)}`,
    );
  });

  it('refuses bytes that are no Sigstore bundle', () => {
    expect(attestationProblem(Buffer.from('garbage'), DIGEST, COMMIT, policy)).toMatch(/^not a Sigstore bundle \(/);
    expect(attestationProblem(Buffer.from('{}'), DIGEST, COMMIT, policy)).toMatch(/^not a Sigstore bundle \(.+\)$/);
  });

  it("refuses a bundle whose payload was changed after signing, with the verifier's code", async () => {
    const bundle = JSON.parse((await provenanceBundle(mock, RIGHT)).toString('utf8')) as {
      dsseEnvelope: { payload: string };
    };
    const statement = JSON.parse(Buffer.from(bundle.dsseEnvelope.payload, 'base64').toString('utf8')) as {
      subject: { digest: { sha256: string } }[];
    };
    statement.subject[0]!.digest.sha256 = '3'.repeat(64);
    bundle.dsseEnvelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
    expect(attestationProblem(Buffer.from(JSON.stringify(bundle)), DIGEST, COMMIT, policy)).toMatch(
      /^signature does not verify \([A-Z_]+: .+\)$/,
    );
  });

  it('reads long certificate extensions: a repository with a 39-character owner and a 100-character name', async () => {
    const repository = `${'o'.repeat(39)}/${'n'.repeat(100)}`;
    expect(await problem({ repository }, { repository })).toBeUndefined();
  });

  it('reads extensions longer than 255 bytes (two length bytes)', async () => {
    const repository = `${'o'.repeat(150)}/${'n'.repeat(150)}`;
    expect(await problem({ repository }, { repository })).toBeUndefined();
    expect(await problem({ repository, sourceRepository: `${repository}x` }, { repository })).toBe(
      `built from repository "https://github.com/${repository}x", not https://github.com/${repository}`,
    );
  });
});

describe('verifyImagesProvenance()', () => {
  it("names the image, the commit, the policy and every attestation's problem", async () => {
    const source = attestationDouble({
      [DIGEST]: [
        await provenanceBundle(mock, { ...RIGHT, sha: null }),
        await provenanceBundle(mock, { ...RIGHT, digest: OTHER }),
      ],
    });
    const ref = `ghcr.io/acme/api@${DIGEST}`;
    await expect(verifyImagesProvenance({ HEPHAESTUS_IMAGE_API: ref }, COMMIT, source, policy)).rejects.toMatchObject({
      code: 'provenance',
      details: { variable: 'HEPHAESTUS_IMAGE_API', image: ref, commit: COMMIT },
      message: `Cannot promote ${COMMIT.slice(0, 12)}: HEPHAESTUS_IMAGE_API (${ref}) has no provenance from acme/platform's ci.yml at this commit: built at commit (none), not at ${COMMIT}; statement subjects do not include ${DIGEST}`,
    });
  });

  it('checks every image, looking each up by its digest', async () => {
    const source = attestationDouble({ [DIGEST]: [await provenanceBundle(mock, RIGHT)] });
    await expect(
      verifyImagesProvenance(
        { HEPHAESTUS_IMAGE_API: `ghcr.io/acme/api@${DIGEST}`, HEPHAESTUS_IMAGE_WORKER: `ghcr.io/acme/worker@${OTHER}` },
        COMMIT,
        source,
        policy,
      ),
    ).rejects.toMatchObject({ details: { variable: 'HEPHAESTUS_IMAGE_WORKER' } });
    expect(source.lookups).toEqual([DIGEST, OTHER]);
  });
});
