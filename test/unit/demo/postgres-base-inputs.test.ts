// What goes into the example's PostgreSQL base, and the hash that notices a changed host package set.
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputsHash, postgresBaseInputs } from '../../../scripts/lib/demo/postgres-base-image.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pg-base-inputs-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('postgresBaseInputs()', () => {
  it("takes Debian's PostgreSQL 15 server binaries, its extension libraries and their ldd closure, setpriv and busybox, but not the LLVM JIT", async () => {
    const { files, folders } = await postgresBaseInputs();
    for (const binary of ['postgres', 'initdb', 'pg_ctl', 'pg_isready', 'psql'])
      expect(files).toContain(`/usr/lib/postgresql/15/bin/${binary}`);
    expect(files).toContain('/usr/lib/postgresql/15/lib/plpgsql.so');
    expect(files.some((f) => /\/libpq\.so\.5$/.test(f))).toBe(true);
    expect(files.some((f) => /\/libc\.so\.6$/.test(f))).toBe(true);
    expect(files).toEqual(expect.arrayContaining(['/usr/bin/setpriv', '/bin/busybox']));
    expect(files.filter((f) => f.includes('llvmjit'))).toEqual([]);
    expect(folders).toEqual(['/usr/share/postgresql/15', '/usr/share/zoneinfo']);
  });
});

describe('inputsHash()', () => {
  it('is stable for unchanged inputs and moves when a file changes size or modification time, or a file is added', async () => {
    const a = join(dir, 'a.so');
    const b = join(dir, 'share', 'b.sql');
    await writeFile(a, 'one');
    await rm(join(dir, 'share'), { recursive: true, force: true });
    await mkdir(join(dir, 'share'));
    await writeFile(b, 'x');
    const inputs = { files: [a], folders: [join(dir, 'share')] };
    const first = await inputsHash(inputs);
    expect(await inputsHash(inputs)).toBe(first);
    await utimes(a, new Date(), new Date(Date.now() + 60_000));
    const touched = await inputsHash(inputs);
    expect(touched).not.toBe(first);
    await writeFile(join(dir, 'share', 'c.sql'), 'y');
    expect(await inputsHash(inputs)).not.toBe(touched);
  });
});
