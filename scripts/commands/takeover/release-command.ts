// `takeover release`: hand the lease back from any state; `takeover stop` does the same when no start runs.
import { command, flag } from 'cmd-ts';
import type { TargetArgs } from '../../lib/takeover/open-context.ts';
import { cluster, EXIT_CODES, targetArgs } from './target-args.ts';

/** Releases and prints what it did. */
export async function releaseAndPrint(args: TargetArgs, force: boolean): Promise<number> {
  const { openTakeoverContext, releaseTarget } = await cluster();
  const released = await releaseTarget(await openTakeoverContext(args), force);
  if (released.kind === 'nothing')
    process.stdout.write(
      `no lease on ${args.target}${released.cleaned.length > 0 ? ` (cleaned up: ${released.cleaned.join('; ')})` : ''}\n`,
    );
  else if (released.kind === 'cleaned-by-other')
    process.stdout.write(
      `your lease on [${released.applications.join(', ')}] of ${args.target} expired; ${released.by} cleaned it up at ${released.at}: ${released.done.join('; ')}\n`,
    );
  else process.stdout.write(`released [${released.applications.join(', ')}] on ${args.target}\n`);
  return 0;
}

export const releaseCommand = command({
  name: 'takeover release',
  description:
    "Hand the lease back from any state (also after a crash). Another checkout's unexpired lease needs --force.\n" +
    EXIT_CODES,
  args: {
    ...targetArgs,
    force: flag({ long: 'force', description: "hand back another checkout's unexpired lease (says what it breaks)" }),
  },
  handler: (args) => releaseAndPrint(args, args.force),
});
