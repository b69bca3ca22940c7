// The stat cache's in-memory form: fixed records, paths end to end, an index; a body that does not fit together
// decodes as nothing.
import { describe, expect, it } from 'vitest';
import { StatTable } from '../../../scripts/lib/fingerprint/stat-table.ts';

const stat = (i: number) => ({
  size: BigInt(i),
  mtimeNs: 1_700_000_000_000_000_000n + BigInt(i),
  ctimeNs: 1_700_000_000_000_000_001n + BigInt(i),
  ino: 2n ** 63n + BigInt(i),
  mode: 0o100644n,
});
const digest = (i: number) => Buffer.alloc(32, i % 256);
const STAMP = 1_800_000_000_000_000_000n;
const paths = (n: number) => Array.from({ length: n }, (_, i) => `dir-${i % 7}/ünï-${i}/${'x'.repeat(i % 50)}.ts`);

describe('StatTable', () => {
  it('answers each path recorded, through many growths, and survives its own encoding', () => {
    const table = new StatTable();
    const all = paths(3000);
    all.forEach((p, i) => table.record(p, stat(i), digest(i), STAMP));
    const decoded = StatTable.decode(Buffer.concat(table.encode()));
    for (const t of [table, decoded]) {
      expect(t?.size).toBe(3000);
      all.forEach((p, i) => expect(t?.lookup(p, stat(i))).toBe(digest(i).toString('hex')));
      expect(t?.lookup('not/recorded', stat(0))).toBeUndefined();
    }
  });

  it('replaces a path recorded again instead of adding it twice', () => {
    const table = new StatTable();
    table.record('a', stat(1), digest(1), STAMP);
    table.record('a', stat(2), digest(2), STAMP);
    expect(table.size).toBe(1);
    expect(table.lookup('a', stat(1))).toBeUndefined();
    expect(table.lookup('a', stat(2))).toBe(digest(2).toString('hex'));
  });

  it('decodes nothing from a body whose counts, lengths or path ends do not fit together', () => {
    const table = new StatTable();
    paths(3).forEach((p, i) => table.record(p, stat(i), digest(i), STAMP));
    const body = Buffer.concat(table.encode());
    expect(StatTable.decode(body)).toBeDefined();
    expect(StatTable.decode(body.subarray(0, body.length - 1))).toBeUndefined();
    expect(StatTable.decode(body.subarray(0, 4))).toBeUndefined();
    const more = Buffer.from(body);
    more.writeUInt32LE(4, 0); // one record more than there is
    expect(StatTable.decode(more)).toBeUndefined();
    const backwards = Buffer.from(body);
    backwards.writeUInt32LE(0, 8 + 44); // the first path ends where it starts: empty
    expect(StatTable.decode(backwards)).toBeUndefined();
    const outside = Buffer.from(body);
    outside.writeUInt32LE(1 << 30, 8 + 80 + 44);
    expect(StatTable.decode(outside)).toBeUndefined();
  });

  it('an empty table encodes to a header and decodes back', () => {
    const decoded = StatTable.decode(Buffer.concat(new StatTable().encode()));
    expect(decoded?.size).toBe(0);
    expect(decoded?.lookup('a', stat(0))).toBeUndefined();
  });
});
