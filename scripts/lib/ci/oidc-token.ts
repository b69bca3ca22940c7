import { z } from 'zod';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { CiError } from './ci-error.ts';

const runnerEnv = z.object({
  ACTIONS_ID_TOKEN_REQUEST_URL: z.url(),
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: z.string().min(1),
});
const answer = z.object({ value: z.string().min(1) });

/** Asks the GitHub Actions runner for an OIDC token for `audience` (the job needs `permissions: id-token: write`). */
export async function requestOidcToken(audience: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const parsed = runnerEnv.safeParse(env);
  if (!parsed.success)
    throw new CiError(
      'oidc',
      `Cannot request an OIDC token (does the job have id-token: write?):\n${describeZodIssues('environment', {}, parsed.error).join('\n')}`,
    );
  const url = new URL(parsed.data.ACTIONS_ID_TOKEN_REQUEST_URL);
  url.searchParams.set('audience', audience);
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${parsed.data.ACTIONS_ID_TOKEN_REQUEST_TOKEN}` },
  });
  if (!response.ok)
    throw new CiError(
      'oidc',
      `Cannot request an OIDC token from "${url.origin}${url.pathname}": HTTP ${response.status}`,
      { details: { status: response.status } },
    );
  const json: unknown = await response.json();
  const token = answer.safeParse(json);
  if (!token.success)
    throw new CiError(
      'oidc',
      `Cannot read the OIDC token answer:\n${describeZodIssues(`${url.origin}${url.pathname}`, json, token.error).join('\n')}`,
    );
  return token.data.value;
}
