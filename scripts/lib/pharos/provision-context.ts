// One context's database, as ordered steps: role, database, login, migrations. Each step is idempotent.
import { PharosError } from './pharos-error.ts';
import { sqlState } from './postgres-connection.ts';
import type { Connect, PostgresTarget, Sql } from './postgres-connection.ts';
import type { ContextSpec } from './context-registry.ts';
import type { Migration } from './migrations.ts';
import type { Step, StepRun } from '../steps/step.ts';

export interface ContextOutcome {
  readonly context: string;
  role: 'created' | 'present';
  database: 'created' | 'present';
  password: 'ok' | 'set';
  applied: string[];
  already: string[];
}

export interface ContextWork {
  readonly spec: ContextSpec;
  readonly password: string;
  readonly migrations: readonly Migration[];
}

export interface ProvisionCtx {
  readonly admin: Sql;
  readonly target: PostgresTarget;
  readonly connect: Connect;
  readonly log: (line: string) => void;
}

/** One context's run: what it provisions and what each step found. */
export interface ContextState {
  readonly work: ContextWork;
  readonly out: ContextOutcome;
}

export type ProvisionStep = StepRun<ProvisionCtx, ContextState>;

const MIGRATIONS_TABLE = 'pharos_schema_migrations';

/** The role, created with its password when missing; an existing role keeps its settings. */
export const ensureRole: ProvisionStep = async ({ admin }, { work: { spec, password }, out }) => {
  const found = await admin.query('SELECT rolcanlogin, rolsuper FROM pg_roles WHERE rolname = $1', [spec.role]);
  if (found.rowCount === 0) {
    // CREATE ROLE takes no bind parameters: the literal is escaped by the client library, and this text is never logged.
    await admin.query(
      `CREATE ROLE ${admin.escapeIdentifier(spec.role)} LOGIN PASSWORD ${admin.escapeLiteral(password)}`,
    );
    out.role = 'created';
    return { summary: 'role created' };
  }
  const row = found.rows[0] as { rolcanlogin: boolean; rolsuper: boolean };
  if (row.rolsuper)
    throw new PharosError(
      'database',
      `Refusing to provision context "${spec.name}": role "${spec.role}" is a superuser; a context's role must not be`,
      { details: { context: spec.name, role: spec.role } },
    );
  if (!row.rolcanlogin) await admin.query(`ALTER ROLE ${admin.escapeIdentifier(spec.role)} LOGIN`);
  out.role = 'present';
  return { summary: 'role present' };
};

/** The database, owned by the role and closed to PUBLIC; one owned by another role is refused, never taken over. */
export const ensureDatabase: ProvisionStep = async ({ admin }, { work: { spec }, out }) => {
  const found = await admin.query('SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1', [
    spec.database,
  ]);
  if (found.rowCount === 0) {
    await admin.query(
      `CREATE DATABASE ${admin.escapeIdentifier(spec.database)} OWNER ${admin.escapeIdentifier(spec.role)} ENCODING 'UTF8' TEMPLATE template0`,
    );
    await admin.query(`REVOKE ALL ON DATABASE ${admin.escapeIdentifier(spec.database)} FROM PUBLIC`);
    out.database = 'created';
    return { summary: 'database created' };
  }
  const owner = (found.rows[0] as { owner: string }).owner;
  if (owner !== spec.role)
    throw new PharosError(
      'database',
      `Refusing to provision context "${spec.name}": database "${spec.database}" is owned by "${owner}", not "${spec.role}"`,
      { details: { context: spec.name, database: spec.database, owner } },
    );
  out.database = 'present';
  return { summary: 'database present' };
};

async function loginAs(ctx: ProvisionCtx, work: ContextWork): Promise<Sql> {
  return ctx.connect(ctx.target, { user: work.spec.role, password: work.password, database: work.spec.database });
}

/** The role logs in with the bound password; a refused one (the database outlived its credentials) is set again. */
export const ensureLogin: ProvisionStep = async (ctx, { work, out }) => {
  try {
    await (await loginAs(ctx, work)).end();
    return { summary: 'password ok' };
  } catch (error) {
    if (sqlState(error) !== '28P01') throw error;
  }
  await ctx.admin.query(
    `ALTER ROLE ${ctx.admin.escapeIdentifier(work.spec.role)} PASSWORD ${ctx.admin.escapeLiteral(work.password)}`,
  );
  out.password = 'set';
  await (await loginAs(ctx, work)).end();
  return { summary: 'password set' };
};

/** Each migration in its own transaction, as the context's role, recorded with its checksum; an edited one is refused. */
export const applyMigrations: ProvisionStep = async (ctx, { work, out }) => {
  const sql = await loginAs(ctx, work);
  try {
    // One provisioner per database at a time: a second Job waits here instead of applying twice.
    await sql.query("SELECT pg_advisory_lock(hashtext('pharos-migrations'))");
    await sql.query(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (version text PRIMARY KEY, sha256 text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const rows = (await sql.query(`SELECT version, sha256 FROM ${MIGRATIONS_TABLE}`)).rows as {
      version: string;
      sha256: string;
    }[];
    const done = new Map(rows.map((r) => [r.version, r.sha256]));
    const known = new Set(work.migrations.map((m) => m.version));
    const unknown = [...done.keys()].filter((v) => !known.has(v));
    if (unknown.length > 0)
      throw new PharosError(
        'migration',
        `Refusing to migrate context "${work.spec.name}": the database has migrations this image lacks (${unknown.join(', ')}); it was migrated by a newer release`,
        { details: { context: work.spec.name, unknown } },
      );
    for (const m of work.migrations) {
      const recorded = done.get(m.version);
      if (recorded === m.sha256) {
        out.already.push(m.version);
        continue;
      }
      if (recorded !== undefined)
        throw new PharosError(
          'migration',
          `Refusing to migrate context "${work.spec.name}": "${m.file}" changed after it was applied (recorded sha256 ${recorded.slice(0, 12)}, file ${m.sha256.slice(0, 12)}); add a new migration instead`,
          { details: { context: work.spec.name, file: m.file } },
        );
      // The server lexes the whole migration before it runs any of it, with these settings: make them the ones the
      // transaction-control check read it with, whatever an earlier migration set for the session.
      await sql.query(`SET standard_conforming_strings = on; SET client_encoding = 'UTF8'`);
      await sql.query('BEGIN');
      try {
        await sql.query(m.sql);
        await sql.query(`INSERT INTO ${MIGRATIONS_TABLE} (version, sha256) VALUES ($1, $2)`, [m.version, m.sha256]);
        await sql.query('COMMIT');
      } catch (error) {
        await sql.query('ROLLBACK').catch(() => undefined);
        throw new PharosError(
          'migration',
          `Cannot apply migration "${m.file}" of context "${work.spec.name}": ${describePgError(error, m.sql)}; it was rolled back, ${out.applied.length === 0 ? 'no migration of this run was applied' : `the ones before it stay applied (${out.applied.join(', ')})`}`,
          { details: { context: work.spec.name, file: m.file, state: sqlState(error) }, cause: error },
        );
      }
      out.applied.push(m.version);
      ctx.log(`provision: context=${work.spec.name} applied ${m.version}`);
    }
  } finally {
    await sql.end().catch(() => undefined);
  }
  return { summary: `migrations applied=${out.applied.length} already=${out.already.length}` };
};

/** PostgreSQL's message with its SQLSTATE and, when it says where, the line of the migration file. */
export function describePgError(error: unknown, text: string): string {
  const e = error as { message?: string; position?: string };
  const state = sqlState(error);
  const position = Number(e.position);
  const line = Number.isInteger(position) && position > 0 ? text.slice(0, position - 1).split('\n').length : undefined;
  return `${e.message ?? String(error)}${state === undefined ? '' : ` (SQLSTATE ${state})`}${line === undefined ? '' : ` at line ${line}`}`;
}

/** Each step is idempotent and checks PostgreSQL itself, so a rerun runs them all (resume policy `none`). */
export const CONTEXT_STEPS: readonly Step<ProvisionCtx, ContextState>[] = [
  { name: 'role', run: ensureRole },
  { name: 'database', run: ensureDatabase },
  { name: 'login', run: ensureLogin },
  { name: 'migrations', run: applyMigrations },
];
