import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import { gitHubDeployments } from '../../../scripts/lib/promotion/github-deployments.ts';

const API = 'http://github.test';
const github = gitHubDeployments({ repository: 'acme/platform', token: 't0ken', apiUrl: API });
const record = {
  ref: 'a'.repeat(40),
  environment: 'staging',
  description: 'promote aaaaaaaaaaaa',
  payload: { requestedBy: 'octocat' },
  productionEnvironment: false,
};

afterEach(() => nock.cleanAll());

describe('gitHubDeployments (GitHub REST, answered by nock)', () => {
  it('creates the deployment without waiting on status checks, then posts its status', async () => {
    nock(API, { reqheaders: { authorization: 'Bearer t0ken' } })
      .post('/repos/acme/platform/deployments', {
        ref: record.ref,
        environment: 'staging',
        description: record.description,
        payload: record.payload,
        auto_merge: false,
        required_contexts: [],
        production_environment: false,
        transient_environment: false,
      })
      .reply(201, { id: 77 })
      .post('/repos/acme/platform/deployments/77/statuses', {
        state: 'success',
        description: 'signed',
        environment: 'staging',
        log_url: 'https://run',
        auto_inactive: true,
      })
      .reply(201, {});
    const id = await github.create(record);
    await github.setStatus(id, 'staging', { state: 'success', description: 'signed', logUrl: 'https://run' });
    expect(id).toBe(77);
    expect(nock.isDone()).toBe(true);
  });

  it('fails with the URL and status when GitHub refuses', async () => {
    nock(API)
      .post(/deployments/)
      .reply(403, {});
    await expect(github.create(record)).rejects.toMatchObject({
      code: 'deployment',
      message: expect.stringMatching(/deployments": HTTP 403/),
    });
  });
});
