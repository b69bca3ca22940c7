import { describe, expect, it } from 'vitest';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseContextRegistry, selectContexts } from '../../../scripts/lib/pharos/context-registry.ts';
import { readMigrations } from '../../../scripts/lib/pharos/migrations.ts';

const ok = {
  schema: 1,
  contexts: {
    catalog: {
      database: 'catalog',
      role: 'catalog',
      binding: 'CATALOG_DATABASE_PASSWORD',
      migrations: 'migrations/catalog',
    },
  },
};

describe('the context registry', () => {
  it('names the file, the field and the value of every bad entry', () => {
    const bad = {
      schema: 1,
      contexts: { catalog: { database: 'Catalog; DROP', role: 'catalog', binding: 'x-y', migrations: '../outside' } },
    };
    expect(() => parseContextRegistry(JSON.stringify(bad), 'devops/contexts.json')).toThrow(
      [
        'Cannot read the context registry "devops/contexts.json":',
        'devops/contexts.json: contexts.catalog.database: must be a lower-case PostgreSQL name such as "catalog" (value "Catalog; DROP")',
        'devops/contexts.json: contexts.catalog.binding: must be a Secret key such as "CATALOG_DATABASE_PASSWORD" (value "x-y")',
        'devops/contexts.json: contexts.catalog.migrations: must be a path inside the repository (no leading "/", no "..") (value "../outside")',
      ].join('\n'),
    );
  });

  it('refuses two contexts sharing a database', () => {
    const twice = { schema: 1, contexts: { ...ok.contexts, shop: { ...ok.contexts.catalog, role: 'shop' } } };
    expect(() => parseContextRegistry(JSON.stringify(twice), 'r.json')).toThrow(
      'contexts.shop.database: "catalog" is already context "catalog"\'s',
    );
  });

  it('selects contexts by name and names an unknown one', () => {
    const registry = parseContextRegistry(JSON.stringify(ok), 'r.json');
    expect(registry.bindingsSecret).toBe('metallo-credentials');
    expect(selectContexts(registry, [], 'r.json').map((c) => c.name)).toEqual(['catalog']);
    expect(() => selectContexts(registry, ['nope'], 'r.json')).toThrow(
      'Cannot provision "nope": not in the context registry "r.json" (known: catalog)',
    );
  });
});

describe('readMigrations()', () => {
  it('orders by number, not by text, and checksums each file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
    await writeFile(join(dir, '10_later.sql'), 'SELECT 10;');
    await writeFile(join(dir, '9_first.sql'), 'SELECT 9;');
    await writeFile(join(dir, 'README.md'), 'not a migration');
    const list = await readMigrations(dir);
    expect(list.map((m) => m.version)).toEqual(['9_first.sql', '10_later.sql']);
    expect(list[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a badly named file, two files with one number, and a folder posing as a migration', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
    await writeFile(join(dir, 'init.sql'), '');
    await expect(readMigrations(dir)).rejects.toThrow(
      '"init.sql" must be regular files named like "0001_create_items.sql"',
    );
    const twice = await mkdtemp(join(tmpdir(), 'migrations-'));
    await writeFile(join(twice, '1_a.sql'), '');
    await writeFile(join(twice, '01_b.sql'), '');
    await expect(readMigrations(twice)).rejects.toThrow('have the same number');
    const folder = await mkdtemp(join(tmpdir(), 'migrations-'));
    await mkdir(join(folder, '1_dir.sql'));
    await expect(readMigrations(folder)).rejects.toThrow('"1_dir.sql" must be regular files');
  });
});

describe('transactionControl()', () => {
  it('finds a statement that would end the migration transaction early', async () => {
    const { transactionControl } = await import('../../../scripts/lib/pharos/migrations.ts');
    expect(transactionControl('CREATE TABLE a (x int);\nCOMMIT;\nCREATE TABLE b (y int);')).toBe('COMMIT');
    expect(transactionControl('begin;\ncreate table a (x int);')).toBe('BEGIN');
    expect(transactionControl('CREATE TABLE a (x int); start transaction;')).toBe('START TRANSACTION');
  });

  it('ignores BEGIN and END in function bodies, strings and comments', async () => {
    const { transactionControl } = await import('../../../scripts/lib/pharos/migrations.ts');
    const fn =
      'CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $body$\nBEGIN\n  RETURN 1;\nEND;\n$body$;\nCREATE FUNCTION g() RETURNS void LANGUAGE plpgsql AS $$ BEGIN PERFORM 1; END; $$;';
    expect(transactionControl(fn)).toBeUndefined();
    expect(
      transactionControl(
        "INSERT INTO notes VALUES ('; COMMIT');\n-- COMMIT here would be wrong\n/* ROLLBACK */ SELECT 1;",
      ),
    ).toBeUndefined();
  });

  it('refuses such a migration by file name before anything is applied', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
    await writeFile(join(dir, '1_split.sql'), 'CREATE TABLE a (x int);\nCOMMIT;\n');
    await expect(readMigrations(dir)).rejects.toThrow(
      `Cannot use migration "${join(dir, '1_split.sql')}": it contains COMMIT (line 2); each migration already runs in its own transaction, which it must not end`,
    );
  });
});
