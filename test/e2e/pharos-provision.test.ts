import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgres } from '../support/postgres-server.ts';
import type { PostgresServer } from '../support/postgres-server.ts';
import { NODE, PROJECT_ROOT, runScript } from '../support/run-script.ts';

// scripts/provision-contexts.ts --secrets, run as the -1 hook runs it, against a real PostgreSQL 15.
let server: PostgresServer;
let top: string;

beforeAll(async () => {
  server = await startPostgres();
  top = await mkdtemp(join(tmpdir(), 'pharos-provision-'));
});
afterAll(async () => {
  await server?.close();
  await rm(top, { recursive: true, force: true });
});

interface Run {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface Repo {
  readonly root: string;
  readonly secrets: string;
  readonly passwords: Record<string, string>;
  /** Rewrites the registry and migrations; passwords of existing contexts stay. */
  write(contexts: Record<string, Record<string, string>>): Promise<void>;
  run(...args: string[]): Promise<Run>;
}

let repoCount = 0;
async function makeRepo(contexts: Record<string, Record<string, string>>): Promise<Repo> {
  const root = join(top, `repo-${++repoCount}`);
  const secrets = join(root, 'secrets');
  await mkdir(secrets, { recursive: true });
  const passwords: Record<string, string> = {};
  const repo: Repo = {
    root,
    secrets,
    passwords,
    async write(next) {
      const registry: Record<string, object> = {};
      for (const [name, migrations] of Object.entries(next)) {
        const db = name.replaceAll('-', '_');
        const binding = `${db.toUpperCase()}_DATABASE_PASSWORD`;
        registry[name] = { database: db, role: db, binding, migrations: `migrations/${name}` };
        passwords[binding] ??= `pw-${Math.random().toString(36).slice(2)}-${name}`;
        await writeFile(join(secrets, binding), passwords[binding] as string);
        const folder = join(root, 'migrations', name);
        await rm(folder, { recursive: true, force: true });
        await mkdir(folder, { recursive: true });
        for (const [file, sql] of Object.entries(migrations)) await writeFile(join(folder, file), sql);
      }
      await mkdir(join(root, 'devops'), { recursive: true });
      await writeFile(join(root, 'devops/contexts.json'), JSON.stringify({ schema: 1, contexts: registry }));
      await writeFile(join(secrets, 'POSTGRES_PASSWORD'), server.adminPassword);
    },
    run(...args) {
      return provision(root, [
        '--secrets',
        '--secrets-dir',
        secrets,
        '--host',
        server.host,
        '--port',
        String(server.port),
        ...args,
      ]);
    },
  };
  await repo.write(contexts);
  return repo;
}

function provision(cwd: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(NODE, [join(PROJECT_ROOT, 'scripts/provision-contexts.ts'), ...args], { cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ status: code ?? 1, stdout, stderr }));
  });
}

function expectNoSecretIn(run: Run, repo: Repo): void {
  for (const value of [server.adminPassword, ...Object.values(repo.passwords)]) {
    expect(run.stdout).not.toContain(value);
    expect(run.stderr).not.toContain(value);
  }
}

async function asAdmin<T>(database: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = await server.admin(database);
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function login(user: string, password: string, database: string): Promise<pg.Client> {
  const client = new pg.Client({ host: server.host, port: server.port, user, password, database });
  await client.connect();
  return client;
}

const tables = (db: string) =>
  asAdmin(
    db,
    async (c) =>
      (await c.query("SELECT tablename, tableowner FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows,
  );
const applied = (db: string) =>
  asAdmin(
    db,
    async (c) =>
      (await c.query('SELECT version, applied_at FROM pharos_schema_migrations ORDER BY 1')).rows as {
        version: string;
        applied_at: Date;
      }[],
  );

const CATALOG = {
  '0001_items.sql': 'CREATE TABLE items (id bigserial PRIMARY KEY, name text NOT NULL);\n',
  '0002_price.sql':
    'ALTER TABLE items ADD COLUMN price_cents integer NOT NULL DEFAULT 0;\nCREATE INDEX items_name ON items (name);\n',
};
const ORDERS = {
  '1-orders.sql': 'CREATE TABLE orders (id bigserial PRIMARY KEY, placed timestamptz NOT NULL DEFAULT now());\n',
};

describe('provision-contexts --secrets (the pharos-database-provision hook)', () => {
  let repo: Repo;
  let first: Run;
  beforeAll(async () => {
    repo = await makeRepo({ catalog: CATALOG, orders: ORDERS });
    first = await repo.run('--json');
  });

  it('first run: each context gets its role, its own database and its migrations, in number order', async () => {
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      'provision: context=catalog role=created database=created password=ok migrations applied=2 already=0',
    );
    expect(first.stderr).toContain(
      'provision: context=orders role=created database=created password=ok migrations applied=1 already=0',
    );
    expect(JSON.parse(first.stdout)).toMatchObject({
      schema: 1,
      provisioned: true,
      contexts: [
        { context: 'catalog', applied: ['0001_items.sql', '0002_price.sql'] },
        { context: 'orders', applied: ['1-orders.sql'] },
      ],
    });
    expect(await tables('catalog')).toEqual([
      { tablename: 'items', tableowner: 'catalog' },
      { tablename: 'pharos_schema_migrations', tableowner: 'catalog' },
    ]);
    const owner = await asAdmin(
      'postgres',
      async (c) =>
        (
          await c.query(
            "SELECT datname, pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname IN ('catalog', 'orders') ORDER BY 1",
          )
        ).rows,
    );
    expect(owner).toEqual([
      { datname: 'catalog', owner: 'catalog' },
      { datname: 'orders', owner: 'orders' },
    ]);
    expectNoSecretIn(first, repo);
  });

  it('each role logs in with its bound password to its own database only', async () => {
    const catalog = await login('catalog', repo.passwords['CATALOG_DATABASE_PASSWORD'] as string, 'catalog');
    await catalog.query("INSERT INTO items (name, price_cents) VALUES ('lamp', 1200)");
    await catalog.end();
    await expect(login('orders', repo.passwords['ORDERS_DATABASE_PASSWORD'] as string, 'catalog')).rejects.toThrow(
      /permission denied for database "catalog"/,
    );
    await expect(login('catalog', 'not-the-password', 'catalog')).rejects.toThrow(/password authentication failed/);
  });

  it('rerun: nothing changes, every migration is already applied', async () => {
    const before = await applied('catalog');
    const run = await repo.run();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'provision: context=catalog role=present database=present password=ok migrations applied=0 already=2',
    );
    expect(run.stderr).toContain(
      'provision: context=orders role=present database=present password=ok migrations applied=0 already=1',
    );
    expect(await applied('catalog')).toEqual(before);
    expectNoSecretIn(run, repo);
  });

  it('a new context and a new migration: only they are created and applied', async () => {
    await repo.write({
      catalog: { ...CATALOG, '0003_stock.sql': 'ALTER TABLE items ADD COLUMN stock integer;\n' },
      orders: ORDERS,
      'audit-log': { '0001_events.sql': 'CREATE TABLE events (at timestamptz, what text);\n' },
    });
    const run = await repo.run();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'provision: context=audit-log role=created database=created password=ok migrations applied=1 already=0',
    );
    expect(run.stderr).toContain(
      'provision: context=catalog role=present database=present password=ok migrations applied=1 already=2',
    );
    expect(run.stderr).toContain(
      'provision: context=orders role=present database=present password=ok migrations applied=0 already=1',
    );
    expect((await applied('catalog')).map((r) => r.version)).toEqual([
      '0001_items.sql',
      '0002_price.sql',
      '0003_stock.sql',
    ]);
    expect((await tables('audit_log')).map((t) => t.tablename)).toEqual(['events', 'pharos_schema_migrations']);
  });

  it('a migration that fails is rolled back whole: a clear error with file, line and SQLSTATE, exit 1, earlier ones kept', async () => {
    await repo.write({
      catalog: {
        ...CATALOG,
        '0003_stock.sql': 'ALTER TABLE items ADD COLUMN stock integer;\n',
        '0004_tags.sql':
          'CREATE TABLE tags (id serial PRIMARY KEY);\nINSERT INTO tags (id) VALUES (1);\nALTER TABLE items ADD COLUMN tag integer REFERENCES no_such_table (id);\n',
      },
      orders: { ...ORDERS, '2-lines.sql': 'CREATE TABLE lines (order_id bigint);\n' },
    });
    const run = await repo.run();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      `provision-contexts: error [migration]: Cannot apply migration "${join(repo.root, 'migrations/catalog/0004_tags.sql')}" of context "catalog": relation "no_such_table" does not exist (SQLSTATE 42P01)`,
    );
    expect(run.stderr).toContain('it was rolled back, no migration of this run was applied');
    expect((await tables('catalog')).map((t) => t.tablename)).not.toContain('tags');
    expect((await applied('catalog')).map((r) => r.version)).toEqual([
      '0001_items.sql',
      '0002_price.sql',
      '0003_stock.sql',
    ]);
    // The run stops at the failure: the contexts after it are not touched.
    expect((await applied('orders')).map((r) => r.version)).toEqual(['1-orders.sql']);
    expectNoSecretIn(run, repo);

    await repo.write({
      catalog: {
        ...CATALOG,
        '0003_stock.sql': 'ALTER TABLE items ADD COLUMN stock integer;\n',
        '0004_tags.sql': 'CREATE TABLE tags (id serial PRIMARY KEY);\n',
      },
      orders: { ...ORDERS, '2-lines.sql': 'CREATE TABLE lines (order_id bigint);\n' },
    });
    const fixed = await repo.run();
    expect(fixed.status, fixed.stderr).toBe(0);
    expect((await applied('orders')).map((r) => r.version)).toEqual(['1-orders.sql', '2-lines.sql']);
  });

  it('refuses a migration edited after it was applied, and changes nothing', async () => {
    await repo.write({
      catalog: {
        ...CATALOG,
        '0001_items.sql': 'CREATE TABLE items (id bigserial PRIMARY KEY);\n',
        '0003_stock.sql': 'ALTER TABLE items ADD COLUMN stock integer;\n',
        '0004_tags.sql': 'CREATE TABLE tags (id serial PRIMARY KEY);\n',
      },
      orders: ORDERS,
    });
    const before = await applied('catalog');
    const run = await repo.run('--context', 'catalog');
    expect(run.status).toBe(1);
    expect(await applied('catalog')).toEqual(before);
    expect(run.stderr).toMatch(
      /error \[migration\]: Refusing to migrate context "catalog": ".*0001_items\.sql" changed after it was applied \(recorded sha256 [0-9a-f]{12}, file [0-9a-f]{12}\); add a new migration instead/,
    );
  });

  it('reports the line of a syntax error in the migration file', async () => {
    const bad = await makeRepo({
      syntax: {
        '0001_ok.sql': 'CREATE TABLE a (x int);\n',
        '0002_bad.sql': '-- a comment\nCREATE TABLE b (y int);\nCREAT TABLE c (z int);\n',
      },
    });
    const run = await bad.run();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('"syntax": syntax error at or near "CREAT" (SQLSTATE 42601) at line 3');
    expect((await tables('syntax')).map((t) => t.tablename)).toEqual(['a', 'pharos_schema_migrations']);
  });

  it('a missing binding fails before PostgreSQL is touched, naming the file (exit 2)', async () => {
    const missing = await makeRepo({ ghost: { '0001_a.sql': 'SELECT 1;\n' } });
    await rm(join(missing.secrets, 'GHOST_DATABASE_PASSWORD'));
    const run = await missing.run();
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      `error [secrets]: Cannot read secret "GHOST_DATABASE_PASSWORD" from "${join(missing.secrets, 'GHOST_DATABASE_PASSWORD')}": missing`,
    );
    expect(
      await asAdmin(
        'postgres',
        async (c) => (await c.query("SELECT 1 FROM pg_roles WHERE rolname = 'ghost'")).rowCount,
      ),
    ).toBe(0);
  });

  it('a wrong administrator password is refused at once with a clear error (exit 1)', async () => {
    const wrong = await makeRepo({ wrongpw: { '0001_a.sql': 'SELECT 1;\n' } });
    await writeFile(join(wrong.secrets, 'POSTGRES_PASSWORD'), 'not-the-admin-password');
    const run = await wrong.run('--wait', '60');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('error [database]: Cannot log in to PostgreSQL at 127.0.0.1:');
    expect(run.stderr).toContain('as "postgres": the administrator password is refused (28P01)');
    expect(run.stderr).not.toContain('not-the-admin-password');
  });

  it('refuses a database that another role owns instead of taking it over', async () => {
    await asAdmin('postgres', (c) => c.query('CREATE DATABASE squatted'));
    const squat = await makeRepo({ squatted: { '0001_a.sql': 'SELECT 1;\n' } });
    const run = await squat.run();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      'error [database]: Refusing to provision context "squatted": database "squatted" is owned by "postgres", not "squatted"',
    );
  });

  it('two runs at once: one applies, the other finds it done', async () => {
    const twin = await makeRepo({
      twin: {
        '0001_a.sql': 'CREATE TABLE a (x int);\nSELECT pg_sleep(0.5);\n',
        '0002_b.sql': 'CREATE TABLE b (y int);\n',
      },
    });
    const [a, b] = await Promise.all([twin.run(), twin.run()]);
    expect([a.status, b.status], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
    const lines = [a.stderr, b.stderr].map((s) =>
      s.split('\n').find((l) => l.startsWith('provision: context=twin role=')),
    );
    expect(lines.sort()).toEqual([
      'provision: context=twin role=created database=created password=ok migrations applied=2 already=0',
      'provision: context=twin role=present database=present password=ok migrations applied=0 already=2',
    ]);
  });

  it('waits for PostgreSQL that is still starting, and gives up after --wait with exit 1', async () => {
    const late = await makeRepo({ late: { '0001_a.sql': 'CREATE TABLE a (x int);\n' } });
    await server.stop();
    try {
      const gaveUp = await late.run('--wait', '1');
      expect(gaveUp.status).toBe(1);
      expect(gaveUp.stderr).toMatch(
        /error \[unavailable\]: Cannot connect to PostgreSQL at 127\.0\.0\.1:\d+: still ECONNREFUSED after 1 s/,
      );
      const waiting = late.run('--wait', '60');
      await new Promise((r) => setTimeout(r, 2_000));
      await server.start();
      const run = await waiting;
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/provision: waiting for PostgreSQL at 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
      expect(run.stderr).toContain('provision: context=late role=created database=created');
    } finally {
      await server.start().catch(() => undefined);
    }
  });

  it('Deno runs the same hook unchanged', async () => {
    const denoRepo = await makeRepo({ deno: { '0001_a.sql': 'CREATE TABLE a (x int);\n' } });
    const result = runScript(
      'provision-contexts.ts',
      ['--secrets', '--secrets-dir', denoRepo.secrets, '--host', server.host, '--port', String(server.port)],
      { cwd: denoRepo.root, runtime: 'deno' },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'provision: context=deno role=created database=created password=ok migrations applied=1 already=0',
    );
  });

  it('without --secrets it only prints the plan and connects to nothing; --help exits 0', async () => {
    const plan = await provision(repo.root, ['--host', '127.0.0.1', '--port', '1']);
    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      'catalog: role catalog, database catalog, password from CATALOG_DATABASE_PASSWORD, migrations 0001_items.sql 0002_price.sql',
    );
    const help = await provision(repo.root, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--secrets');
  });
});
