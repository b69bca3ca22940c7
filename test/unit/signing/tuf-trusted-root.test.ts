import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publicGoodTrustedRoot, tufTrustedRoot } from '../../../scripts/lib/signing/index.ts';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('tufTrustedRoot', () => {
  it('falls back to the seed root, saying so, when TUF cannot be reached and nothing is cached', async () => {
    const lines: string[] = [];
    const root = await tufTrustedRoot({
      cachePath: mkdtempSync(join(tmpdir(), 'tuf-')),
      mirrorURL: `http://127.0.0.1:${await closedPort()}`,
      timeoutMs: 2000,
      log: (m) => lines.push(m),
    });
    expect(root).toEqual(publicGoodTrustedRoot());
    expect(root.certificateAuthorities.length).toBeGreaterThan(0);
    expect(lines).toEqual([
      expect.stringMatching(/^TUF refresh failed/),
      expect.stringMatching(/^no cached TUF trusted root/),
    ]);
  });
});
