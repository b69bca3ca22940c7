// The provision hook starts with PostgreSQL's StatefulSet still coming up: wait for it, within a deadline.
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../ports/clock.ts';
import { PharosError } from './pharos-error.ts';
import { errnoOf, sqlState } from './postgres-connection.ts';
import type { Connect, Login, PostgresTarget, Sql } from './postgres-connection.ts';

// 57P03 cannot_connect_now (starting up or shutting down); 53300 too many connections.
const NOT_YET = new Set(['57P03', '53300']);

export interface WaitOptions {
  readonly connect: Connect;
  readonly clock: Clock;
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  readonly sleep?: (ms: number) => Promise<unknown>;
  readonly log?: (line: string) => void;
}

export async function waitForPostgres(target: PostgresTarget, login: Login, options: WaitOptions): Promise<Sql> {
  const deadline = options.clock.now().getTime() + options.timeoutMs;
  const where = `${target.host}:${target.port}`;
  for (let attempt = 1; ; attempt++) {
    try {
      const sql = await options.connect(target, login);
      await sql.query('SELECT 1');
      if (attempt > 1) options.log?.(`provision: PostgreSQL at ${where} answers`);
      return sql;
    } catch (error) {
      const state = sqlState(error);
      const errno = errnoOf(error);
      if (state === '28P01' || state === '28000') {
        throw new PharosError(
          'database',
          `Cannot log in to PostgreSQL at ${where} as "${login.user}": the administrator password is refused (${state}); is the Job given the same POSTGRES_PASSWORD as the StatefulSet?`,
          { details: { where, state }, cause: error },
        );
      }
      const retryable = (state !== undefined && NOT_YET.has(state)) || errno !== undefined;
      const reason = state ?? errno ?? (error as Error).message;
      if (!retryable)
        throw new PharosError('database', `Cannot connect to PostgreSQL at ${where}: ${(error as Error).message}`, {
          details: { where, state },
          cause: error,
        });
      if (options.clock.now().getTime() >= deadline) {
        throw new PharosError(
          'unavailable',
          `Cannot connect to PostgreSQL at ${where}: still ${reason} after ${Math.round(options.timeoutMs / 1000)} s`,
          { details: { where, reason }, cause: error },
        );
      }
      if (attempt === 1 || attempt % 5 === 0)
        options.log?.(`provision: waiting for PostgreSQL at ${where} (${reason})`);
      await (options.sleep ?? delay)(options.intervalMs ?? 1_000);
    }
  }
}
