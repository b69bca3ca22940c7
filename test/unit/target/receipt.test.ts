import { describe, expect, it } from 'vitest';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readReceipt, writeReceipt } from '../../../scripts/lib/target/receipt.ts';

const ref = `registry.pharos-build.svc.cluster.local:5000/compat-web@sha256:${'a'.repeat(64)}`;

describe('receipt', () => {
  it('round-trips through an atomic write and reports a damaged field by path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'receipt-'));
    const file = join(dir, 'receipt.json');
    expect(await readReceipt(file)).toBeUndefined();
    const receipt = {
      schema: 1 as const,
      commit: 'c'.repeat(40),
      delivered: '2026-10-14T12:00:00Z',
      images: { 'compat-web': { fingerprint: 'f'.repeat(64), reference: ref } },
    };
    await writeReceipt(file, receipt);
    expect(await readReceipt(file)).toEqual(receipt);
    await writeFile(file, JSON.stringify({ ...receipt, commit: 'HEAD' }));
    await expect(readReceipt(file)).rejects.toThrow(/receipt\.json: commit: must be a 40-hex commit \(value "HEAD"\)/);
  });
});
