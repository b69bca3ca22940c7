// `takeover status`: the lease, its windows, the local runtimes, replacements, agents and the journal.
import { command, flag } from 'cmd-ts';
import { cluster, EXIT_CODES, targetArgs } from './target-args.ts';

export const statusCommand = command({
  name: 'takeover status',
  description:
    'Who holds the lease, since and until when, which Applications and windows, the local runtimes, replacements,\ntraffic agents and queued agent removals, what the journal says.\n' +
    EXIT_CODES,
  args: { ...targetArgs, json: flag({ long: 'json', description: 'print JSON on stdout' }) },
  handler: async (args) => {
    const { openTakeoverContext, readTakeoverStatus, formatStatus } = await cluster();
    const result = await readTakeoverStatus(await openTakeoverContext(args));
    process.stdout.write(args.json ? `${JSON.stringify({ schema: 1, ...result })}\n` : formatStatus(result));
    return 0;
  },
});
