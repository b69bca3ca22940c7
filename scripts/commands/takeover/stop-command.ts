// `takeover stop`: ask this checkout's running start to hand back and wait; with none running, release.
import { resolve } from 'node:path';
import { command } from 'cmd-ts';
import { targetStatePaths } from '../../lib/target/state-paths.ts';
import { LeaseError } from '../../lib/ownership/lease-error.ts';
import { runningStart, startLockOf, stopRunningStart } from '../../lib/takeover/stop-running.ts';
import { releaseAndPrint } from './release-command.ts';
import { EXIT_CODES, targetArgs } from './target-args.ts';

export const stopCommand = command({
  name: 'takeover stop',
  description:
    "Ask this checkout's running `takeover start` to hand back and wait until it has; with none running, the same as release.\n" +
    EXIT_CODES,
  args: { ...targetArgs },
  handler: async (args) => {
    const paths = await targetStatePaths(resolve(args.repo), args.target);
    const pid = await runningStart(startLockOf(paths.dir));
    if (pid === undefined) return releaseAndPrint(args, false);
    process.stderr.write(`takeover: asking process ${pid} to hand back\n`);
    if (!(await stopRunningStart(pid, (line) => process.stderr.write(`takeover: ${line}\n`))))
      throw new LeaseError(
        'settle-timeout',
        `Cannot stop the takeover of target "${args.target}": process ${pid} did not finish its hand-back within 10 minutes`,
      );
    process.stdout.write(`handed back (process ${pid} ended)\n`);
    return 0;
  },
});
