// The PostgreSQL port: a client from the `pg` library; every statement with a secret in it is never logged.
import pg from 'pg';
import type { ClientBase } from 'pg';

export interface PostgresTarget {
  readonly host: string;
  readonly port: number;
}

export interface Login {
  readonly user: string;
  readonly password: string;
  readonly database: string;
}

export type Sql = Pick<ClientBase, 'query' | 'escapeIdentifier' | 'escapeLiteral'> & { end(): Promise<void> };

export type Connect = (target: PostgresTarget, login: Login) => Promise<Sql>;

/** Connects with a timeout, so a server that never answers fails instead of hanging the hook. */
export const connectPostgres: Connect = async (target, login) => {
  const client = new pg.Client({
    host: target.host,
    port: target.port,
    user: login.user,
    password: login.password,
    database: login.database,
    connectionTimeoutMillis: 5_000,
    application_name: 'pharos-provision',
  });
  // An idle client whose server goes away emits 'error'; the next query reports it instead of crashing the process.
  client.on('error', () => {});
  await client.connect();
  return client;
};

/** PostgreSQL's SQLSTATE of a failed call, if it has one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Connection-level errno (`ECONNREFUSED`, `ETIMEDOUT`…), if any. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  if (error instanceof Error && /timeout/i.test(error.message)) return 'ETIMEDOUT';
  return undefined;
}
