import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import { gitHubCiHistory } from '../../../scripts/lib/promotion/index.ts';

const API = 'http://github.test';
const sha = 'a'.repeat(40);
const ci = gitHubCiHistory({ repository: 'acme/platform', workflow: 'ci.yml', token: 't0ken', apiUrl: API });

afterEach(() => nock.cleanAll());

describe('gitHubCiHistory (GitHub REST, answered by nock)', () => {
  it('lists successful push runs of the CI workflow on main, with the token', async () => {
    nock(API, { reqheaders: { authorization: 'Bearer t0ken' } })
      .get('/repos/acme/platform/actions/workflows/ci.yml/runs')
      .query({ branch: 'main', event: 'push', status: 'success', per_page: '100' })
      .reply(200, {
        workflow_runs: [
          { head_sha: sha, updated_at: '2026-11-29T10:00:00Z', conclusion: 'success' },
          { head_sha: 'b'.repeat(40), updated_at: '2026-11-29T11:00:00Z', conclusion: 'failure' },
        ],
      });
    expect(await ci.successfulMainBuilds()).toEqual([{ commit: sha, completedAt: '2026-11-29T10:00:00Z' }]);
  });

  it("reads a commit's image pins from the build's check run output", async () => {
    const pins = { HEPHAESTUS_IMAGE_API: `ghcr.io/acme/api@sha256:${'1'.repeat(64)}` };
    nock(API)
      .get(`/repos/acme/platform/commits/${sha}/check-runs`)
      .query({ check_name: 'hephaestus-images' })
      .reply(200, { check_runs: [{ conclusion: 'success', output: { text: JSON.stringify(pins) } }] });
    expect(await ci.imagesFor(sha)).toEqual(pins);
  });

  it('fails with the URL and status when GitHub refuses', async () => {
    nock(API).get(/runs/).reply(403, { message: 'rate limited' });
    await expect(ci.successfulMainBuilds()).rejects.toMatchObject({
      code: 'ci-lookup',
      message: expect.stringMatching(/HTTP 403/),
    });
  });

  it('refuses image pins that are not digests', async () => {
    nock(API)
      .get(/check-runs/)
      .reply(200, {
        check_runs: [{ conclusion: 'success', output: { text: '{"HEPHAESTUS_IMAGE_API":"ghcr.io/acme/api:latest"}' } }],
      });
    await expect(ci.imagesFor(sha)).rejects.toMatchObject({ code: 'images' });
  });
});
