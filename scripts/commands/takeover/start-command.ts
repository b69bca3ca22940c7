// `takeover start`: take over images until Ctrl-C, SIGTERM or `takeover stop`, then hand everything back.
import { command, flag, option, optional, restPositionals, string } from 'cmd-ts';
import { debounceOption, leaseTimings, replacementOption } from '../../lib/takeover/takeover-options.ts';
import { cluster, EXIT_CODES, targetArgs } from './target-args.ts';

export const startCommand = command({
  name: 'takeover start',
  description:
    'Acquire the lease on the Applications of the chosen images (default: every candidate), run the images here (native\n' +
    'or Docker), route their workloads to them through Telepresence (else scale them to zero), follow saved files\n' +
    '(restarting what a save moves), renew every 5 minutes; Ctrl-C, SIGTERM or `takeover stop` hands everything back.\n' +
    EXIT_CODES,
  args: {
    ...targetArgs,
    images: restPositionals({ type: string, displayName: 'IMAGE', description: 'catalogue names to take over' }),
    ttl: option({ long: 'ttl', type: optional(string), description: 'lease time to live (default 12h)' }),
    renewEvery: option({ long: 'renew-every', type: optional(string), description: 'renewal interval (default 5m)' }),
    replacement: option({
      long: 'replacement',
      type: string,
      defaultValue: () => 'auto',
      defaultValueIsSerializable: true,
      description: 'auto (Telepresence when its CLI answers, else scale-to-zero), telepresence or scale-to-zero',
    }),
    noWatch: flag({
      long: 'no-watch',
      description: 'do not follow saved files (by default a save restarts the runtimes of the images it moves)',
    }),
    debounce: option({
      long: 'debounce',
      type: optional(string),
      description: 'quiet period after a save before deciding (default 200ms)',
    }),
  },
  handler: async (args) => {
    const { ttlMs, renewMs } = leaseTimings(args.ttl, args.renewEvery);
    const replacement = replacementOption(args.replacement);
    const debounceMs = debounceOption(args.debounce);
    const { openTakeoverContext, runTakeoverStart } = await cluster();
    const ctx = await openTakeoverContext(args, { ttlMs, replacement });
    // Ctrl-C or SIGTERM at any point, even while acquiring, ends in a hand-back; a second one does not cut it short.
    let requestStop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (requestStop = resolve));
    const onSignal = (signal: string) => {
      process.stderr.write(`takeover: ${signal}: handing back (this takes a moment)\n`);
      requestStop();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    await runTakeoverStart(ctx, { images: args.images, renewMs, watch: !args.noWatch, debounceMs, stopped });
    return 0;
  },
});
