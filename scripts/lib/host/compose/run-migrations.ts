import { ApplyError } from '../apply-error.ts';
import type { Step } from '../tick-context.ts';
import type { ComposeTickState } from './compose-state.ts';

const MIGRATION_TIMEOUT_MS = 60 * 60 * 1000;

/** Step 6: the new release's migration (`hephaestus.role=migration`) runs once while the previous release still runs every role. */
export const runMigrations: Step<ComposeTickState> = async (ctx, state) => {
  const ran: string[] = [];
  for (const { stack, project, services } of state.stacks) {
    for (const service of services.filter((s) => s.role === 'migration')) {
      const result = await ctx.ports.compose.runOnce(project, service.name, MIGRATION_TIMEOUT_MS);
      if (result.code !== 0) {
        const tail = `${result.stdout.toString('utf8')}\n${result.stderr}`.trim().split('\n').slice(-3).join(' / ');
        throw new ApplyError(
          'migration-failed',
          `Cannot migrate: ${stack}/${service.name} exited ${result.code}: ${tail}`,
          { details: { stack, service: service.name, code: result.code } },
        );
      }
      ran.push(`${stack}/${service.name}`);
    }
  }
  return { next: true, fields: { migrations: ran.length === 0 ? 'none' : ran.join(' ') } };
};
