import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMigrations, transactionControl } from '../../../scripts/lib/pharos/migrations.ts';
import { PharosError } from '../../../scripts/lib/pharos/pharos-error.ts';

describe("transactionControl() finds a statement that would end the migration's transaction early", () => {
  it('finds a COMMIT after an apostrophe in a comment (the comment starts no string)', () => {
    expect(transactionControl("-- we don't need the old table\nCOMMIT;\nSELECT 'x';")).toBe('COMMIT');
    expect(transactionControl("/* it's the last step */\nROLLBACK;\nSELECT 'x';")).toBe('ROLLBACK');
  });

  it('finds a COMMIT between two strings holding "$$" (a string starts no dollar-quoted body)', () => {
    expect(transactionControl("INSERT INTO t VALUES ('$$');\nCOMMIT;\nINSERT INTO t VALUES ('$$');")).toBe('COMMIT');
  });
});

describe('transactionControl(): what it reads past and what it names', () => {
  it('reads a comment as a space, as PostgreSQL does', () => {
    expect(transactionControl('SELECT 1;START/* why */TRANSACTION;')).toBe('START TRANSACTION');
  });

  it('finds a COMMIT right after a header comment', () => {
    expect(transactionControl('-- 0002: move the items\nCOMMIT;')).toBe('COMMIT');
    expect(transactionControl('/* 0002: move\n   the items */\nCOMMIT;')).toBe('COMMIT');
    expect(transactionControl('/*a*/COMMIT;')).toBe('COMMIT');
  });

  it('reads past comments and strings that hold a statement, and a body tagged with its own name', () => {
    expect(transactionControl("SELECT 1; /* COMMIT; */ -- ROLLBACK;\nSELECT ';COMMIT', 'it''s; END';")).toBeUndefined();
    expect(
      transactionControl(
        'CREATE FUNCTION f() RETURNS void AS $fn$ BEGIN PERFORM $$x$$; COMMIT; END $fn$ LANGUAGE plpgsql;',
      ),
    ).toBeUndefined();
    expect(transactionControl('SELECT 1 -- only a comment, no newline after it')).toBeUndefined();
  });

  it('names the statement in upper case with single spaces, whatever the spacing', () => {
    expect(transactionControl('select 1;\nstart\n\t transaction;')).toBe('START TRANSACTION');
    expect(transactionControl("SELECT 1; prepare   transaction 'x';")).toBe('PREPARE TRANSACTION');
    expect(transactionControl('SELECT 1;savepoint a;')).toBe('SAVEPOINT');
  });

  it('ignores words that only begin like a statement, or statements not at a statement start', () => {
    expect(transactionControl('CREATE TABLE beginnings (ending int);')).toBeUndefined();
    expect(transactionControl('SELECT commit_time FROM log;')).toBeUndefined();
    expect(transactionControl('SELECT 1 AS begin;')).toBeUndefined();
  });
});

describe('readMigrations(): numbered SQL files, in number order, each checked', () => {
  async function folder(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    return dir;
  }

  it('orders many files by number, whatever order the folder lists them in', async () => {
    const numbers = [12, 3, 100, 7, 1, 45, 9, 20, 2, 8, 30, 5];
    const dir = await folder(Object.fromEntries(numbers.map((n) => [`${n}_step.sql`, `SELECT ${n};`])));
    const list = await readMigrations(dir);
    expect(list.map((m) => m.version)).toEqual([...numbers].sort((a, b) => a - b).map((n) => `${n}_step.sql`));
    expect(list[0]).toMatchObject({ version: '1_step.sql', file: join(dir, '1_step.sql'), sql: 'SELECT 1;' });
  });

  it("checksums each file's exact text with SHA-256", async () => {
    const list = await readMigrations(await folder({ '0001_init.sql': 'SELECT 1;\n' }));
    // printf 'SELECT 1;\n' | sha256sum
    expect(list[0]?.sha256).toBe('b4e0497804e46e0a0b0b8c31975b062152d551bac49c3c2e80932567b4085dcd');
  });

  it.each([['v1_init.sql'], ['1_init.sql copy.sql'], ['1init.sql'], ['1_.sql']])(
    'refuses the file name %j, naming the folder (exit 2)',
    async (name) => {
      const dir = await folder({ [name]: 'SELECT 1;' });
      const error: unknown = await readMigrations(dir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PharosError);
      expect(error).toMatchObject({
        code: 'registry',
        exitCode: 2,
        details: { folder: dir },
        message: `Cannot read migrations "${dir}": "${name}" must be regular files named like "0001_create_items.sql"`,
      });
    },
  );

  it('names every badly named file at once', async () => {
    const dir = await folder({ 'a.sql': '', 'b.sql': '', '1_ok.sql': '' });
    await expect(readMigrations(dir)).rejects.toThrow(
      /: "a\.sql", "b\.sql" must be regular files|: "b\.sql", "a\.sql" must be regular files/,
    );
  });

  it('names both files sharing a number, in name order', async () => {
    const dir = await folder({ '1_a.sql': '', '01_b.sql': '', '2_c.sql': '' });
    const error: unknown = await readMigrations(dir).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'registry',
      details: { folder: dir },
      message: `Cannot read migrations "${dir}": "01_b.sql" and "1_a.sql" have the same number`,
    });
  });

  it('refuses a missing folder, naming it and the reason', async () => {
    const dir = join(tmpdir(), 'no-such-migrations-folder');
    const error: unknown = await readMigrations(dir).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'registry',
      details: { folder: dir },
      message: `Cannot read migrations "${dir}": ENOENT`,
    });
    expect((error as Error).cause).toMatchObject({ code: 'ENOENT' });
  });

  it('names the migration holding a transaction statement, in the details too', async () => {
    const dir = await folder({ '1_ok.sql': 'SELECT 1;', '2_bad.sql': 'SELECT 1;\nROLLBACK;' });
    const error: unknown = await readMigrations(dir).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'registry', exitCode: 2, details: { file: join(dir, '2_bad.sql') } });
    expect((error as Error).message).toBe(
      `Cannot use migration "${join(dir, '2_bad.sql')}": it contains ROLLBACK (line 2); each migration already runs in its own transaction, which it must not end`,
    );
  });

  it('leaves other files in the folder alone', async () => {
    const dir = await folder({ '1_a.sql': 'SELECT 1;', 'README.md': '', 'notes.sql.txt': '' });
    await mkdir(join(dir, 'old'));
    expect((await readMigrations(dir)).map((m) => m.version)).toEqual(['1_a.sql']);
  });
});
