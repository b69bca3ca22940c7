// A promotion waits for the public webapp to report the requested version: a real HTTP server on loopback that answers
// with the old version first, then the new one (or never), as a webapp does while hosts apply.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { reportedVersionMatches, waitForVersion } from '../../../scripts/lib/promotion/version-check.ts';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

/** Serves `bodies` in turn (the last one from then on); answers how many requests it had. */
async function webapp(
  bodies: readonly { status?: number; body: string }[],
): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  server = createServer((_, res) => {
    const answer = bodies[Math.min(hits, bodies.length - 1)] ?? { body: '' };
    hits += 1;
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/version`, hits: () => hits };
}

const SHA = 'a'.repeat(40);

describe('waitForVersion', () => {
  it('polls until the webapp reports the requested release, then says which it saw', async () => {
    const app = await webapp([
      { body: '{"version":"1.2.2"}' },
      { status: 502, body: 'bad gateway' },
      { body: '{"version":"1.2.3"}' },
    ]);
    const result = await waitForVersion({ url: app.url, expected: 'v1.2.3', timeoutMs: 10_000, intervalMs: 20 });
    expect(result).toMatchObject({ ok: true, seen: '1.2.3', expected: 'v1.2.3', url: app.url });
    expect(app.hits()).toBe(3);
  });

  it('a webapp that keeps the old version fails the check at the deadline, naming what it reported', async () => {
    const app = await webapp([{ body: '{"version":"1.2.2"}' }]);
    const started = Date.now();
    const result = await waitForVersion({ url: app.url, expected: 'v1.2.3', timeoutMs: 300, intervalMs: 20 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result).toMatchObject({ ok: false, seen: '1.2.2' });
    expect(result.message).toMatch(/did not report v1\.2\.3 within 0\.3 s; it last reported "1\.2\.2"/);
  });

  it('a server that never answers stops at the deadline too', async () => {
    server = createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const started = Date.now();
    const result = await waitForVersion({ url, expected: SHA, timeoutMs: 400, intervalMs: 20 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result).toMatchObject({ ok: false, seen: null });
    server.closeAllConnections();
  });
});

describe('reportedVersionMatches', () => {
  it('a release matches with or without its v, a commit only in full; other text never', () => {
    expect(reportedVersionMatches('1.2.3', 'v1.2.3')).toBe(true);
    expect(reportedVersionMatches('v1.2.3', 'v1.2.3')).toBe(true);
    expect(reportedVersionMatches('1.2.30', 'v1.2.3')).toBe(false);
    expect(reportedVersionMatches(SHA, SHA)).toBe(true);
    expect(reportedVersionMatches(SHA.slice(0, 12), SHA)).toBe(false);
  });
});
