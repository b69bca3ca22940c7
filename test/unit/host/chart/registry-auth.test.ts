// Pushing the release's chart to a registry that wants credentials, as ghcr.io does: a 401 with a Bearer challenge, a
// token from the realm for the push scope with Basic credentials, then the upload with the token. The server follows
// Docker's distribution token-auth document (distribution/distribution docs/spec/auth/token.md) on loopback.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushChart } from '../../../../scripts/lib/host/chart/oci-chart.ts';
import { parseChallenge } from '../../../../scripts/lib/host/chart/registry-auth.ts';

const USER = 'release-bot';
const PASSWORD = 'ghs_secret-token';
const TOKEN = 'push-token-1';
let server: Server;
let host: string;
const seen: { method: string; url: string; authorization: string | undefined }[] = [];
const blobs = new Map<string, Buffer>();

const body = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    const data = await body(req);
    if (url.pathname === '/token') {
      const ok = req.headers.authorization === `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
      if (!ok || url.searchParams.get('scope') !== 'repository:acme/charts/hephaestus:pull,push')
        return res.writeHead(401).end();
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: TOKEN }));
    }
    if (req.headers.authorization !== `Bearer ${TOKEN}`)
      return res
        .writeHead(401, {
          'www-authenticate': `Bearer realm="http://${host}/token",service="registry.test",scope="repository:acme/charts/hephaestus:pull"`,
        })
        .end('{"errors":[{"code":"UNAUTHORIZED"}]}');
    if (req.method === 'POST')
      return res.writeHead(202, { location: '/v2/acme/charts/hephaestus/blobs/uploads/u1' }).end();
    if (req.method === 'PUT' && url.pathname.includes('/blobs/uploads/')) {
      blobs.set(url.searchParams.get('digest') ?? '', data);
      return res.writeHead(201).end();
    }
    if (req.method === 'PUT' && url.pathname.includes('/manifests/')) return res.writeHead(201).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('pushChart with registry credentials', () => {
  const archive = Buffer.from('chart bytes');
  const metadata = { name: 'hephaestus', version: '1.2.3' };

  it('answers the Bearer challenge with a token for the push scope and uploads with it', async () => {
    const reference = await pushChart(host, 'acme/charts/hephaestus', '1.2.3', archive, metadata, {
      username: USER,
      password: PASSWORD,
    });
    expect(reference).toMatch(new RegExp(`^oci://${host}/acme/charts/hephaestus@sha256:[0-9a-f]{64}$`));
    expect(blobs.get(`sha256:${createHash('sha256').update(archive).digest('hex')}`)).toEqual(archive);
    expect(seen.filter((r) => r.url.startsWith('/token'))).toHaveLength(1);
    // The password travels only in the token request's Authorization header, never in a URL.
    expect(seen.some((r) => r.url.includes(PASSWORD))).toBe(false);
    expect(seen.filter((r) => r.authorization?.startsWith('Basic ')).map((r) => r.url.split('?')[0])).toEqual([
      '/token',
    ]);
  });

  it('without credentials the 401 is the error, naming the registry', async () => {
    await expect(pushChart(host, 'acme/charts/hephaestus', '1.2.3', archive, metadata)).rejects.toThrow(
      /upload start answered 401/,
    );
  });

  it('wrong credentials: the token request is refused and says where', async () => {
    await expect(
      pushChart(host, 'acme/charts/hephaestus', '1.2.3', archive, metadata, { username: USER, password: 'wrong' }),
    ).rejects.toThrow(/Cannot log in to the registry: http:\/\/127\.0\.0\.1:\d+\/token answered 401/);
  });
});

describe('parseChallenge', () => {
  it('reads the scheme and the quoted parameters of a WWW-Authenticate header as ghcr.io sends them', () => {
    expect(
      parseChallenge('Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:o/r:pull"'),
    ).toEqual({
      scheme: 'bearer',
      params: { realm: 'https://ghcr.io/token', service: 'ghcr.io', scope: 'repository:o/r:pull' },
    });
    expect(parseChallenge('Basic realm="Registry"')).toEqual({ scheme: 'basic', params: { realm: 'Registry' } });
  });
});
