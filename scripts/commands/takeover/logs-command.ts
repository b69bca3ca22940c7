// `takeover logs`: the last lines of each local runtime's log.
import { resolve } from 'node:path';
import { command, option, restPositionals, string } from 'cmd-ts';
import { targetStatePaths } from '../../lib/target/state-paths.ts';
import { UsageError } from '../../lib/errors/toolkit-error.ts';
import { logSnapshot } from '../../lib/takeover/runtime/log-snapshot.ts';
import { EXIT_CODES, targetArgs } from './target-args.ts';

export const logsCommand = command({
  name: 'takeover logs',
  description:
    "The last lines of each local runtime's log (.local/metallo/<target>/<image>.log), or of the named images.\n" +
    EXIT_CODES,
  args: {
    ...targetArgs,
    images: restPositionals({ type: string, displayName: 'IMAGE', description: 'images (default: every log)' }),
    lines: option({
      long: 'lines',
      type: string,
      defaultValue: () => '50',
      defaultValueIsSerializable: true,
      description: 'lines per log',
    }),
  },
  handler: async (args) => {
    const count = Number(args.lines);
    if (!Number.isInteger(count) || count < 1)
      throw new UsageError(`Cannot use --lines ${JSON.stringify(args.lines)}: give a whole number of lines`);
    const dir = (await targetStatePaths(resolve(args.repo), args.target)).dir;
    const snapshot = await logSnapshot(dir, args.images, count);
    if (snapshot.length === 0) process.stdout.write(`no runtime logs for target ${args.target}\n`);
    for (const log of snapshot) process.stdout.write(`==> ${log.image} (${log.file}) <==\n${log.lines.join('\n')}\n`);
    return 0;
  },
});
