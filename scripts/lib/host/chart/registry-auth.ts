import { ChartError } from './chart-error.ts';

/** Registry credentials (the release workflow's GITHUB_TOKEN for ghcr.io): never on a command line, never logged. */
export interface RegistryCredentials {
  readonly username: string;
  readonly password: string;
}

/** `Bearer realm="…",service="…",scope="…"` or `Basic realm="…"` as the registry sent it. */
export function parseChallenge(header: string): { scheme: string; params: Record<string, string> } {
  const space = header.indexOf(' ');
  const scheme = (space === -1 ? header : header.slice(0, space)).toLowerCase();
  const params: Record<string, string> = {};
  for (const m of header.slice(space + 1).matchAll(/([a-zA-Z]+)="([^"]*)"/g))
    params[(m[1] ?? '').toLowerCase()] = m[2] ?? '';
  return { scheme, params };
}

const basic = (c: RegistryCredentials) => `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;

/**
 * A fetch that answers a registry's 401 as Docker's distribution auth says (docs/spec/auth/token.md): Basic credentials,
 * or a Bearer token from the challenge's realm for its service and the push scope of `repository`, asked for once and
 * reused. Without credentials a 401 is reported as it is.
 */
export function authorizedFetch(
  repository: string,
  credentials: RegistryCredentials | undefined,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  let authorization: string | undefined;
  const send = (url: string | URL, init: RequestInit = {}) =>
    fetch(url, {
      ...init,
      headers: {
        ...(init.headers as Record<string, string> | undefined),
        ...(authorization === undefined ? {} : { authorization }),
      },
    });
  return async (url, init) => {
    const first = await send(url, init);
    if (first.status !== 401 || credentials === undefined || authorization !== undefined) return first;
    const challenge = parseChallenge(first.headers.get('www-authenticate') ?? '');
    await first.body?.cancel();
    if (challenge.scheme === 'basic') authorization = basic(credentials);
    else if (challenge.scheme === 'bearer' && challenge.params.realm !== undefined) {
      const realm = new URL(challenge.params.realm);
      if (challenge.params.service !== undefined) realm.searchParams.set('service', challenge.params.service);
      realm.searchParams.set('scope', `repository:${repository}:pull,push`);
      const answer = await fetch(realm, { headers: { authorization: basic(credentials) } });
      if (!answer.ok)
        throw new ChartError(
          'pull-failed',
          `Cannot log in to the registry: ${realm.origin}${realm.pathname} answered ${answer.status}`,
        );
      const body = (await answer.json().catch(() => ({}))) as { token?: unknown; access_token?: unknown };
      const token = typeof body.token === 'string' ? body.token : body.access_token;
      if (typeof token !== 'string' || token === '')
        throw new ChartError('pull-failed', `Cannot log in to the registry: ${realm.origin} answered no token`);
      authorization = `Bearer ${token}`;
    } else
      throw new ChartError('pull-failed', `Cannot log in to the registry: unknown challenge "${challenge.scheme}"`);
    return send(url, init);
  };
}
