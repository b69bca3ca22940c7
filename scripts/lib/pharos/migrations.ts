// A context's migrations: numbered SQL files, applied in number order, each once, never edited afterwards.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PharosError } from './pharos-error.ts';
import { firstTransactionControl } from './sql-statements.ts';

export interface Migration {
  /** The file name, e.g. `0001_init.sql`: the version recorded in the database. */
  readonly version: string;
  readonly file: string;
  readonly sql: string;
  readonly sha256: string;
}

const NAME = /^(\d+)[-_][A-Za-z0-9_.-]+\.sql$/;

/** The first transaction-control statement the server would run at top level: it would end the migration's own transaction half-way. */
export function transactionControl(sql: string): string | undefined {
  return firstTransactionControl(sql)?.statement;
}

export async function readMigrations(folder: string): Promise<Migration[]> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    throw new PharosError(
      'registry',
      `Cannot read migrations "${folder}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { details: { folder }, cause: error },
    );
  }
  const sql = entries.filter((e) => e.name.endsWith('.sql'));
  const bad = sql.filter((e) => !NAME.test(e.name) || !e.isFile());
  if (bad.length > 0)
    throw new PharosError(
      'registry',
      `Cannot read migrations "${folder}": ${bad.map((e) => `"${e.name}"`).join(', ')} must be regular files named like "0001_create_items.sql"`,
      { details: { folder } },
    );
  // Stryker disable next-line OptionalChaining,StringLiteral: every name passed NAME above
  const numbered = sql.map((e) => ({ name: e.name, n: BigInt(NAME.exec(e.name)?.[1] ?? '0') }));
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equal numbers are refused just below; the tie-break only orders that message's two names
  numbered.sort((a, b) => (a.n === b.n ? a.name.localeCompare(b.name) : a.n < b.n ? -1 : 1));
  const seen = new Map<bigint, string>();
  for (const m of numbered) {
    const other = seen.get(m.n);
    if (other !== undefined)
      throw new PharosError(
        'registry',
        `Cannot read migrations "${folder}": "${other}" and "${m.name}" have the same number`,
        { details: { folder } },
      );
    seen.set(m.n, m.name);
  }
  const out: Migration[] = [];
  for (const { name } of numbered) {
    const file = join(folder, name);
    const text = await readFile(file, 'utf8');
    const control = firstTransactionControl(text);
    if (control !== undefined)
      throw new PharosError(
        'registry',
        `Cannot use migration "${file}": it contains ${control.statement} (line ${control.line}); each migration already runs in its own transaction, which it must not end`,
        { details: { file } },
      );
    out.push({ version: name, file, sql: text, sha256: createHash('sha256').update(text).digest('hex') });
  }
  return out;
}
