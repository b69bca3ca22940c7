// The migration checks against a real PostgreSQL 15: migrations built from quoted identifiers, E'' and standard
// strings, dollar quotes, identifiers holding "$" and nested comments, with transaction statements visible or hidden in
// them, are run as the provision hook runs them; whenever the server ran a transaction-control statement, the toolkit's
// check (scripts/lib/pharos/sql-statements.ts) and the example platform's (transaction-control.awk, run by busybox as
// in the migrate image) both refused the migration, and on migrations the server ran cleanly they agree with it.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstTransactionControl } from '../../scripts/lib/pharos/sql-statements.ts';
import { startPostgres } from '../support/postgres-server.ts';
import type { PostgresServer } from '../support/postgres-server.ts';

const AWK = resolve(import.meta.dirname, '../../examples/platform/services/worker/src/transaction-control.awk');
let server: PostgresServer;
let client: pg.Client;
let dir: string;
let notices: string[] = [];

beforeAll(async () => {
  server = await startPostgres();
  client = await server.admin();
  client.on('notice', (n) => notices.push(n.message ?? ''));
  await client.query('CREATE TABLE marker (n int)');
  dir = await mkdtemp(join(tmpdir(), 'migration-statements-'));
}, 120_000);
afterAll(async () => {
  await client?.end();
  await server?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

interface ServerRun {
  /** A transaction-control statement ran: the marker committed or rolled back, a BEGIN noticed, savepoint sp set. */
  readonly ran: boolean;
  readonly failed: boolean;
}

/** Runs `sql` as provision-context.ts runs a migration (one query string inside BEGIN), then looks at what it did. */
async function onServer(sql: string): Promise<ServerRun> {
  notices = [];
  await client.query(`SET standard_conforming_strings = on; SET client_encoding = 'UTF8'`);
  await client.query('BEGIN');
  await client.query('INSERT INTO marker VALUES (1)');
  const failed = await client.query(sql).then(
    () => false,
    () => true,
  );
  // Looked at first: a failed probe would abort the transaction.
  const rolledBack = await client.query('SELECT count(*)::int AS n FROM marker').then(
    (r) => (r.rows[0] as { n: number }).n === 0,
    () => false,
  );
  const savepoint = await client.query('ROLLBACK TO SAVEPOINT sp').then(
    () => true,
    () => false,
  );
  await client.query('ROLLBACK');
  const committed = ((await client.query('SELECT count(*)::int AS n FROM marker')).rows[0] as { n: number }).n > 0;
  await client.query('DELETE FROM marker');
  const began = notices.some((n) => n.includes('already a transaction in progress'));
  return { ran: savepoint || rolledBack || committed || began, failed };
}

let files = 0;
function awk(sql: string): string | undefined {
  const file = join(dir, `m${(files += 1)}.sql`);
  execFileSync('sh', ['-c', 'cat > "$1"', 'sh', file], { input: sql });
  const out = execFileSync('/bin/busybox', ['awk', '-f', AWK, file], { encoding: 'utf8' }).trim();
  return out === '' ? undefined : out;
}

const toolkit = (sql: string) => {
  const found = firstTransactionControl(sql);
  return found === undefined ? undefined : `${found.statement} ${found.line}`;
};

// Text that looks like SQL structure from inside a literal or comment.
const piece = fc.constantFrom(
  "'",
  '"',
  '\\',
  '$',
  '$$',
  '$a$',
  't$a$',
  ';',
  ' COMMIT; ',
  'ROLLBACK',
  '--',
  '/*',
  '*/',
  '\n',
  ' ',
  'x',
  'E',
  "E'",
);
const body = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(''));
const literal = fc.oneof(
  body.map((b) => `'${b.replaceAll("'", "''")}'`),
  fc
    .tuple(body, fc.boolean())
    .map(([b, doubled]) => `E'${b.replaceAll('\\', '\\\\').replaceAll("'", doubled ? "''" : "\\'")}'`),
  fc.tuple(body, fc.constantFrom('', 'a', 'body')).map(([b, tag]) => {
    const d = `$${tag}$`;
    return b.includes(d) || `${b}$`.includes(d) ? `'${b.replaceAll("'", "''")}'` : `${d}${b}${d}`;
  }),
  body.map((b) => `U&'${b.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`),
);
const comment = fc.oneof(
  body.map((b) => `/* ${b.replaceAll('*/', '* /').replaceAll('/*', '/ *')} */`),
  body.map((b) => `/* outer /* ${b.replaceAll('*/', '* /').replaceAll('/*', '/ *')} */ still outer */`),
  body.map((b) => `-- ${b.replaceAll('\n', ' ')}\n`),
);
const statement = fc.oneof(
  { weight: 4, arbitrary: literal.map((l) => `SELECT ${l}`) },
  { weight: 2, arbitrary: body.filter((b) => b !== '').map((b) => `SELECT 1 AS "${b.replaceAll('"', '""')}"`) },
  { weight: 1, arbitrary: fc.constant('SELECT 1 AS t$a$') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('COMMIT', 'ROLLBACK', 'BEGIN', 'END', 'ABORT', 'START TRANSACTION', 'SAVEPOINT sp'),
  },
  { weight: 1, arbitrary: piece },
);
const separator = fc.oneof(
  fc.constant(';\n'),
  fc.constant('; '),
  comment.map((c) => `; ${c}`),
);
const migration = fc
  .array(fc.tuple(fc.option(comment, { nil: undefined }), statement, separator), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.map(([c, s, sep]) => `${c ?? ''}${s}${sep}`).join(''));

describe('transaction-control checks against PostgreSQL 15', () => {
  it.each([
    ['after a quoted identifier holding an apostrophe', `SELECT 1 AS "it's";\nCOMMIT;\nSELECT 'it''s';`],
    ['after an E string ending in an escaped quote', `SELECT E'\\'';\nCOMMIT;\nSELECT '--';`],
    ['between identifiers holding "$"', 'SELECT 1 AS t$a$;\nCOMMIT;\nSELECT 1 AS t$a$;'],
    ['after a nested comment', '/* a /* b */ c */ COMMIT;'],
    ['after a standard string ending in a backslash', "SELECT '\\';\nCOMMIT;\nSELECT '\\';"],
  ])('sees a COMMIT %s, as the server runs it', async (_what, sql) => {
    expect((await onServer(sql)).ran).toBe(true);
    expect(toolkit(sql)).toMatch(/^COMMIT \d+$/);
    expect(awk(sql)).toBe(toolkit(sql));
  });

  it('leaves alone what the server does not run: literals, comments, dollar bodies and a BEGIN ATOMIC body', async () => {
    const sql = [
      "SELECT 'COMMIT;', E'\\'; COMMIT; --', $$ COMMIT; $$, $a$ $b$ ; COMMIT; $a$, U&'x''; COMMIT' AS \"COMMIT; x\";",
      '/* outer /* COMMIT; */ still COMMIT; */ -- COMMIT;',
      'CREATE FUNCTION pg_temp.f() RETURNS int LANGUAGE sql',
      'BEGIN ATOMIC',
      '  SELECT CASE WHEN true THEN 1 END;',
      'END;',
      'SELECT pg_temp.f();',
    ].join('\n');
    expect(await onServer(sql)).toEqual({ ran: false, failed: false });
    expect(toolkit(sql)).toBeUndefined();
    expect(awk(sql)).toBeUndefined();
  });

  it('property: whatever the server runs is refused by both checks, and on clean runs both agree with it', async () => {
    await fc.assert(
      fc.asyncProperty(migration, async (sql) => {
        const run = await onServer(sql);
        const found = toolkit(sql);
        expect(awk(sql), sql).toBe(found);
        if (run.ran) expect(found, sql).toBeDefined();
        if (!run.failed) expect(found !== undefined, sql).toBe(run.ran);
      }),
      { numRuns: 400 },
    );
  }, 300_000);
});
