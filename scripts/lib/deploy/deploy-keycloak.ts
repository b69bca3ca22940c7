// The real AAI adapter: Keycloak's admin REST API, with a service account's client-credentials token.
import { z } from 'zod';
import { describeZodIssues } from '../errors/zod-issues.ts';
import type { Aai } from './deploy-aai.ts';
import { fileTokens } from './deploy-tokens.ts';
import { DeployError } from './deploy-error.ts';

const credentialsSchema = z.strictObject({ clientId: z.string().min(1), clientSecret: z.string().min(1) });
const tokenSchema = z.object({ access_token: z.string().min(1) });
const clientsSchema = z.array(z.object({ id: z.string().min(1), clientId: z.string() }));
const secretSchema = z.object({ value: z.string().min(1) });

async function json<T>(response: Response, schema: z.ZodType<T>, what: string): Promise<T> {
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${(await response.text()).slice(0, 200)}`);
  const raw: unknown = await response.json();
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new Error(`${what}: unexpected answer\n${describeZodIssues(what, raw, parsed.error).join('\n')}`);
  return parsed.data;
}

/** `issuer` is `<base>/realms/<realm>`; the credentials file is read with the token-file rules (owner-only). */
export function keycloakAai(
  issuer: string,
  credentialsFile: string,
  fetchFn: typeof fetch = fetch,
  timeoutMs = 30_000,
): Aai {
  const match = /^(.*)\/realms\/([^/]+)\/?$/.exec(issuer);
  if (match === null)
    throw new DeployError('bad-profile', `Cannot use AAI issuer "${issuer}": expected "https://<host>/realms/<realm>"`);
  const [, base, realm] = match as unknown as [string, string, string];
  const admin = `${base}/admin/realms/${encodeURIComponent(realm)}`;
  const call = (url: string, init: RequestInit = {}) =>
    fetchFn(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  return {
    issuer,
    async ensureClient(request) {
      // The token-file rules: a regular file, owner-only, one line (its errors name the file and the rule).
      const raw = await fileTokens(credentialsFile);
      let given: unknown;
      try {
        given = JSON.parse(raw);
      } catch {
        throw new DeployError('bad-token', `Cannot use the AAI credentials "${credentialsFile}": not JSON`);
      }
      const creds = credentialsSchema.safeParse(given);
      if (!creds.success)
        throw new DeployError(
          'bad-token',
          `Cannot use the AAI credentials "${credentialsFile}": ${creds.error.issues.map((i) => i.path.join('.')).join(', ')} missing`,
        );
      const body = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: creds.data.clientId,
        client_secret: creds.data.clientSecret,
      });
      const { access_token: token } = await json(
        await call(`${issuer.replace(/\/$/, '')}/protocol/openid-connect/token`, { method: 'POST', body }),
        tokenSchema,
        'token request',
      );
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const find = async () =>
        (
          await json(
            await call(`${admin}/clients?clientId=${encodeURIComponent(request.name)}`, { headers }),
            clientsSchema,
            'client lookup',
          )
        ).find((c) => c.clientId === request.name);
      let client = await find();
      const representation = {
        clientId: request.name,
        protocol: 'openid-connect',
        publicClient: false,
        standardFlowEnabled: true,
        redirectUris: [...request.redirectUris],
      };
      if (client === undefined) {
        const created = await call(`${admin}/clients`, {
          method: 'POST',
          headers,
          body: JSON.stringify(representation),
        });
        if (created.status !== 201 && created.status !== 409)
          throw new Error(`client creation: HTTP ${created.status}`);
        client = await find();
        if (client === undefined) throw new Error(`client "${request.name}" is not listed after its creation`);
      } else {
        const updated = await call(`${admin}/clients/${encodeURIComponent(client.id)}`, {
          method: 'PUT',
          headers,
          body: JSON.stringify({ ...representation, id: client.id }),
        });
        if (!updated.ok) throw new Error(`client update: HTTP ${updated.status}`);
      }
      const secret = await json(
        await call(`${admin}/clients/${encodeURIComponent(client.id)}/client-secret`, { headers }),
        secretSchema,
        'client secret',
      );
      return { clientId: request.name, clientSecret: secret.value };
    },
  };
}
