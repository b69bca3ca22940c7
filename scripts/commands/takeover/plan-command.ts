// `takeover plan`: the working tree's fingerprints against the receipt, while the cluster's clean-up runs beside it.
import { resolve } from 'node:path';
import { command, flag } from 'cmd-ts';
import { hashProgress } from '../../lib/cli/progress.ts';
import { formatTable } from '../../lib/cli/table.ts';
import { targetStatePaths } from '../../lib/target/state-paths.ts';
import { planTakeover } from '../../lib/takeover/plan-takeover.ts';
import { receiptAt } from '../../lib/takeover/receipt-at.ts';
import { RUNTIMES } from '../../lib/takeover/runtime/runtimes.ts';
import { EXIT_CODES, targetArgs } from './target-args.ts';

export const planCommand = command({
  name: 'takeover plan',
  description:
    'Compare working-tree fingerprints with the receipt: in-cluster, candidate, needs-reconcile.\n' + EXIT_CODES,
  args: {
    ...targetArgs,
    explain: flag({ long: 'explain', description: 'name the changed inputs of each differing image' }),
    json: flag({ long: 'json', description: 'print JSON on stdout' }),
  },
  handler: async (args) => {
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
  },
});
