// The provision hook (sync wave -1): every input is read and checked before PostgreSQL is touched.
import { join, resolve } from 'node:path';
import type { Clock } from '../ports/clock.ts';
import { runSteps } from '../steps/run-steps.ts';
import { readMigrations } from './migrations.ts';
import { readSecretKey } from './secrets-folder.ts';
import { waitForPostgres } from './wait-for-postgres.ts';
import { CONTEXT_STEPS } from './provision-context.ts';
import type { ContextOutcome, ContextWork } from './provision-context.ts';
import type { ContextSpec } from './context-registry.ts';
import type { Connect, PostgresTarget } from './postgres-connection.ts';

export interface ProvisionOptions {
  readonly contexts: readonly ContextSpec[];
  /** Where the contexts' `migrations` paths start (the repository, or /opt/pharos in the image). */
  readonly root: string;
  /** The folder the Job mounts the bindings and the administrator password in. */
  readonly secrets: string;
  readonly adminUser: string;
  readonly adminKey: string;
  readonly target: PostgresTarget;
  readonly connect: Connect;
  readonly clock: Clock;
  readonly waitMs: number;
  readonly log: (line: string) => void;
}

export async function prepareWork(
  contexts: readonly ContextSpec[],
  root: string,
  secrets: string,
): Promise<ContextWork[]> {
  const work: ContextWork[] = [];
  for (const spec of contexts) {
    work.push({
      spec,
      migrations: await readMigrations(join(root, spec.migrations)),
      password: await readSecretKey(secrets, spec.binding),
    });
  }
  return work;
}

export async function provisionContexts(options: ProvisionOptions): Promise<ContextOutcome[]> {
  const work = await prepareWork(options.contexts, options.root, options.secrets);
  const password = await readSecretKey(options.secrets, options.adminKey);
  const admin = await waitForPostgres(
    options.target,
    { user: options.adminUser, password, database: 'postgres' },
    { connect: options.connect, clock: options.clock, timeoutMs: options.waitMs, log: options.log },
  );
  const outcomes: ContextOutcome[] = [];
  try {
    // Two provision Jobs at once (a re-sync while one runs): the second waits here and then finds everything done.
    await admin.query("SELECT pg_advisory_lock(hashtext('pharos-provision'))");
    const ctx = { admin, target: options.target, connect: options.connect, log: options.log };
    for (const item of work) {
      const out: ContextOutcome = {
        context: item.spec.name,
        role: 'present',
        database: 'present',
        password: 'ok',
        applied: [],
        already: [],
      };
      await runSteps(ctx, { work: item, out }, { steps: CONTEXT_STEPS });
      options.log(describeOutcome(out));
      outcomes.push(out);
    }
  } finally {
    await admin.end().catch(() => undefined);
  }
  return outcomes;
}

export function describeOutcome(o: ContextOutcome): string {
  return `provision: context=${o.context} role=${o.role} database=${o.database} password=${o.password} migrations applied=${o.applied.length} already=${o.already.length}`;
}

/** What a provisioning would do, from the registry and the migrations only (no PostgreSQL, no secrets). */
export interface ContextPlan {
  readonly context: string;
  readonly role: string;
  readonly database: string;
  readonly binding: string;
  readonly migrations: readonly string[];
}

export async function planProvision(contexts: readonly ContextSpec[], root: string): Promise<ContextPlan[]> {
  const plan: ContextPlan[] = [];
  for (const c of contexts)
    plan.push({
      context: c.name,
      role: c.role,
      database: c.database,
      binding: c.binding,
      migrations: (await readMigrations(resolve(root, c.migrations))).map((m) => m.version),
    });
  return plan;
}
