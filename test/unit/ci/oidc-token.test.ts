import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import { requestOidcToken } from '../../../scripts/lib/ci/oidc-token.ts';

const RUNNER = 'http://runner.test';
const env = {
  ACTIONS_ID_TOKEN_REQUEST_URL: `${RUNNER}/token?api-version=2.0`,
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'req-t0ken',
};

afterEach(() => nock.cleanAll());

describe('requestOidcToken (the runner OIDC endpoint, answered by nock)', () => {
  it('asks for the audience with the request token and returns the token', async () => {
    nock(RUNNER, { reqheaders: { authorization: 'Bearer req-t0ken' } })
      .get('/token')
      .query({ 'api-version': '2.0', audience: 'sigstore' })
      .reply(200, { value: 'eyJ.id.token' });
    expect(await requestOidcToken('sigstore', env)).toBe('eyJ.id.token');
  });

  it('says the job lacks id-token: write when the runner gave no request URL', async () => {
    await expect(requestOidcToken('sigstore', {})).rejects.toMatchObject({
      code: 'oidc',
      message: expect.stringMatching(/id-token: write[\s\S]*ACTIONS_ID_TOKEN_REQUEST_URL/),
    });
  });

  it('fails with the status when the runner refuses, without echoing the request token', async () => {
    nock(RUNNER).get('/token').query(true).reply(403, {});
    const error = await requestOidcToken('sigstore', env).catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'oidc', message: expect.stringMatching(/HTTP 403/) });
    expect((error as Error).message).not.toContain('req-t0ken');
  });
});
