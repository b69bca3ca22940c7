// A test double of the Keycloak admin REST API subset the AAI adapter uses (no Keycloak runs here): the
// client-credentials token endpoint, client lookup by clientId, create, update and the client-secret read.
// It keeps clients in memory, checks the bearer token on every admin call and records each request.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface KeycloakDouble {
  readonly issuer: string;
  readonly admin: { readonly clientId: string; readonly clientSecret: string };
  readonly requests: string[];
  readonly clients: Map<string, { id: string; clientId: string; secret: string; redirectUris: string[] }>;
  close(): Promise<void>;
}

export async function startKeycloakDouble(realm = 'pharos'): Promise<KeycloakDouble> {
  const admin = { clientId: 'pharos-deploy', clientSecret: randomBytes(12).toString('hex') };
  const token = randomBytes(12).toString('hex');
  const requests: string[] = [];
  const clients = new Map<string, { id: string; clientId: string; secret: string; redirectUris: string[] }>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push(`${req.method} ${url.pathname}`);
      const send = (status: number, value?: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(value === undefined ? '' : JSON.stringify(value));
      };
      if (req.method === 'POST' && url.pathname === `/realms/${realm}/protocol/openid-connect/token`) {
        const form = new URLSearchParams(body);
        if (form.get('client_id') !== admin.clientId || form.get('client_secret') !== admin.clientSecret)
          return send(401, { error: 'unauthorized_client' });
        return send(200, { access_token: token, token_type: 'Bearer', expires_in: 60 });
      }
      if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'HTTP 401 Unauthorized' });
      const base = `/admin/realms/${realm}/clients`;
      if (req.method === 'GET' && url.pathname === base) {
        const wanted = url.searchParams.get('clientId');
        return send(
          200,
          [...clients.values()]
            .filter((c) => wanted === null || c.clientId === wanted)
            .map(({ id, clientId }) => ({ id, clientId })),
        );
      }
      if (req.method === 'POST' && url.pathname === base) {
        const rep = JSON.parse(body) as { clientId: string; redirectUris: string[] };
        if ([...clients.values()].some((c) => c.clientId === rep.clientId))
          return send(409, { errorMessage: 'Client exists' });
        const id = randomBytes(8).toString('hex');
        clients.set(id, {
          id,
          clientId: rep.clientId,
          secret: randomBytes(16).toString('hex'),
          redirectUris: rep.redirectUris,
        });
        return send(201);
      }
      const match = new RegExp(`^${base}/([0-9a-f]+)(/client-secret)?$`).exec(url.pathname);
      const client = match === null ? undefined : clients.get(match[1] ?? '');
      if (client === undefined) return send(404, { error: 'Could not find client' });
      if (req.method === 'PUT' && match?.[2] === undefined) {
        client.redirectUris = (JSON.parse(body) as { redirectUris: string[] }).redirectUris;
        return send(204);
      }
      if (req.method === 'GET' && match?.[2] !== undefined) return send(200, { type: 'secret', value: client.secret });
      return send(405);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    issuer: `http://127.0.0.1:${port}/realms/${realm}`,
    admin,
    requests,
    clients,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
