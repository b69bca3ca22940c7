// `takeover watch`: print what each save moves; changes nothing (the running start restarts its own runtimes).
import { resolve } from 'node:path';
import { command, flag, option, optional, string } from 'cmd-ts';
import { targetStatePaths } from '../../lib/target/state-paths.ts';
import { receiptAt } from '../../lib/takeover/receipt-at.ts';
import { debounceOption } from '../../lib/takeover/takeover-options.ts';
import { watchReports } from '../../lib/takeover/watch/watch-report.ts';
import type { WatchReport } from '../../lib/takeover/watch/watch-report.ts';
import { cluster, EXIT_CODES, targetArgs } from './target-args.ts';

const reportLine = (r: WatchReport): string =>
  `${r.paths.join(', ')}: restart [${r.restart.join(', ')}] needs make reconcile [${r.reconcile.join(', ')}] candidates [${r.candidates.join(', ')}] back to the receipt [${r.inCluster.join(', ')}] (${r.ms} ms)\n`;

export const watchCommand = command({
  name: 'takeover watch',
  description:
    'Follow saved files and print what each save moves: the images `start` restarts, those that need make reconcile,\n' +
    'candidates not taken over. Changes nothing (the running `start` restarts its own runtimes). Ctrl-C ends it.\n' +
    EXIT_CODES,
  args: {
    ...targetArgs,
    json: flag({ long: 'json', description: 'one JSON line per save on stdout' }),
    debounce: option({
      long: 'debounce',
      type: optional(string),
      description: 'quiet period after a save (default 200ms)',
    }),
  },
  handler: async (args) => {
    const debounceMs = debounceOption(args.debounce);
    const checkout = resolve(args.repo);
    const receipt = await receiptAt((await targetStatePaths(checkout, args.target)).receipt, args.target);
    let running = new Set<string>();
    try {
      const { openTakeoverContext, imagesRunningHere } = await cluster();
      running = await imagesRunningHere(await openTakeoverContext(args));
    } catch (error) {
      process.stderr.write(
        `takeover: cannot read the lease (${(error as Error).message}): reporting as if nothing ran here\n`,
      );
    }
    const watcher = await watchReports(
      checkout,
      receipt,
      running,
      (r) => process.stdout.write(args.json ? `${JSON.stringify({ schema: 1, ...r })}\n` : reportLine(r)),
      { debounceMs, onError: (e) => process.stderr.write(`takeover: watch: ${e.message}\n`) },
    );
    process.stderr.write('takeover: watching saved files (editor temporaries and .local/ ignored); Ctrl-C ends\n');
    await new Promise<void>((done) => {
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
    await watcher.close();
    return 0;
  },
});
