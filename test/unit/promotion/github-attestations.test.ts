import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import { gitHubAttestations } from '../../../scripts/lib/promotion/github-attestations.ts';

const API = 'http://github.test';
const DIGEST = `sha256:${'1'.repeat(64)}`;
const source = gitHubAttestations({ repository: 'acme/platform', token: 't0ken', apiUrl: API });

afterEach(() => nock.cleanAll());

describe('gitHubAttestations (GitHub REST, answered by nock)', () => {
  it("returns each attestation's Sigstore bundle for the digest, asked with the token", async () => {
    const bundle = { mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json', dsseEnvelope: {} };
    nock(API, { reqheaders: { authorization: 'Bearer t0ken' } })
      .get(`/repos/acme/platform/attestations/${encodeURIComponent(DIGEST)}`)
      .query({ per_page: '100' })
      .reply(200, { attestations: [{ bundle, repository_id: 1 }] });
    const found = await source.attestationsFor(DIGEST);
    expect(found.map((b) => JSON.parse(Buffer.from(b).toString('utf8')))).toEqual([bundle]);
  });

  it('answers none when GitHub has no attestation for the digest (404)', async () => {
    nock(API)
      .get(/attestations/)
      .reply(404, { message: 'Not Found' });
    expect(await source.attestationsFor(DIGEST)).toEqual([]);
  });

  it('fails with the URL and status when GitHub refuses, and names the field of a malformed answer', async () => {
    nock(API)
      .get(/attestations/)
      .reply(403, {});
    await expect(source.attestationsFor(DIGEST)).rejects.toMatchObject({
      code: 'provenance',
      message: expect.stringMatching(/HTTP 403/),
    });
    nock(API)
      .get(/attestations/)
      .reply(200, { attestations: [{ bundle: 'nope' }] });
    await expect(source.attestationsFor(DIGEST)).rejects.toMatchObject({
      code: 'provenance',
      message: expect.stringMatching(/attestations\[0\]\.bundle/),
    });
  });
});
