// What `takeover plan` does once its arguments are read (by cmd-ts, or by plainArgv for the calls made most).
import { resolve } from 'node:path';
import type { PlainArgv, PlainArgvSpec } from '../../lib/cli/plain-argv.ts';
import { hashProgress } from '../../lib/cli/progress.ts';
import { formatTable } from '../../lib/cli/table.ts';
import { targetStatePaths } from '../../lib/target/state-paths.ts';
import { planTakeover } from '../../lib/takeover/plan-takeover.ts';
import { receiptAt } from '../../lib/takeover/receipt-at.ts';
import { RUNTIMES } from '../../lib/takeover/runtime/runtimes.ts';

/** The arguments of `takeover plan`, as cmd-ts reads them (plan-command.ts). */
export interface PlanArgs {
  readonly target: string;
  readonly targets: string;
  readonly repo: string;
  readonly explain: boolean;
  readonly json: boolean;
}

/** Every call is read without cmd-ts when it names each option at most once. */
export const PLAN_PLAIN: PlainArgvSpec = { options: ['target', 'targets', 'repo'], flags: ['explain', 'json'] };

/** What cmd-ts would read from a vector plainArgv read with PLAN_PLAIN (its defaults included). */
export const plainPlanArgs = ({ options, flags }: PlainArgv): PlanArgs => ({
  target: options['target'] ?? 'local',
  targets: options['targets'] ?? 'targets',
  repo: options['repo'] ?? '.',
  explain: flags.has('explain'),
  json: flags.has('json'),
});

/** Prints the plan (a table, or JSON); the exit status. */
export async function planHandler(args: PlanArgs): Promise<number> {
  // The cleanup and the fingerprints are independent: the cluster's round trips overlap the hashing.
  const checkout = resolve(args.repo);
  const receipt = await receiptAt((await targetStatePaths(checkout, args.target)).receipt, args.target);
  const planned = planTakeover({
    checkout,
    receipt,
    runtimes: Object.keys(RUNTIMES),
    explain: args.explain,
    progress: hashProgress('hashing'),
  });
  // The clean-up's own modules, not cluster(): a plan starts, renews and hands back nothing (71 modules, not 124).
  const cleaned = Promise.all([
    import('../../lib/takeover/open-context.ts'),
    import('../../lib/takeover/clean-up.ts'),
  ]).then(async ([{ openTakeoverContext }, { cleanUp }]) => {
    const ctx = await openTakeoverContext(args);
    await cleanUp(ctx).catch((error: Error) => ctx.log(`cleanup skipped: ${error.message}`));
  });
  const [{ rows }] = await Promise.all([planned, cleaned]);
  if (args.json)
    process.stdout.write(
      `${JSON.stringify({ schema: 1, target: args.target, commit: receipt.commit, images: rows })}\n`,
    );
  else {
    process.stdout.write(`receipt: ${receipt.commit}\n`);
    process.stdout.write(
      formatTable(
        ['IMAGE', 'APPLICATION', 'STATUS', 'RUNTIME', 'WHY'],
        rows.map((r) => [r.image, r.application, r.status, r.runtime ?? '-', r.reasons.join('; ')]),
      ),
    );
  }
  return 0;
}
