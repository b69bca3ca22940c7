import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchBounded } from '../../../scripts/lib/host/index.ts';
import { readFileBounded, MAX_ARTIFACT_BYTES } from '../../../scripts/lib/signing/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'bounded-'));

describe('readFileBounded', () => {
  it('reads a file up to 1 MiB exactly', async () => {
    writeFileSync(join(dir, 'max'), Buffer.alloc(MAX_ARTIFACT_BYTES, 0x61));
    expect((await readFileBounded(join(dir, 'max'))).length).toBe(MAX_ARTIFACT_BYTES);
  });

  it('refuses one byte more, naming the file and its size', async () => {
    writeFileSync(join(dir, 'over'), Buffer.alloc(MAX_ARTIFACT_BYTES + 1, 0x61));
    await expect(readFileBounded(join(dir, 'over'))).rejects.toMatchObject({
      code: 'too-large',
      message: expect.stringMatching(/over": 1048577 bytes/),
    });
  });
});

describe('fetchBounded', () => {
  let base = '';
  const server = createServer((req, res) => {
    if (req.url === '/endless') {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 0x7b);
      const pump = () => {
        while (res.write(chunk));
        res.once('drain', pump);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    } else if (req.url === '/declared') {
      res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) });
      res.write('{');
    } else if (req.url === '/ok') res.writeHead(200).end('{"ok":true}');
    else res.writeHead(404).end();
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('refuses an endless body after 1 MiB without buffering it', async () => {
    await expect(fetchBounded(`${base}/endless`)).rejects.toMatchObject({ code: 'too-large' });
  });

  it('refuses a body whose Content-Length is over the limit before reading it', async () => {
    await expect(fetchBounded(`${base}/declared`)).rejects.toMatchObject({
      code: 'too-large',
      message: expect.stringMatching(/52428800 bytes/),
    });
  });

  it('returns small bodies, and undefined for 404', async () => {
    expect((await fetchBounded(`${base}/ok`))?.toString()).toBe('{"ok":true}');
    expect(await fetchBounded(`${base}/missing`)).toBeUndefined();
  });
});
