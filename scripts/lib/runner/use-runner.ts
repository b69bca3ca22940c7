import type { TargetProfile } from '../target/target-profile.ts';
import { RunnerError } from './runner-error.ts';
import type { RunnerProfile } from '../target/runner-profile.ts';

/**
 * Pure: does this command go through the SSH runner? Forced by `--runner`, by `runner.always`, and on macOS,
 * where the Linux tools (ansible's local connection, the dev box's network) are not at hand.
 */
export function chooseRunner(
  profile: TargetProfile,
  platform: NodeJS.Platform,
  forced: boolean,
): RunnerProfile | undefined {
  const wanted = forced || platform === 'darwin' || profile.runner?.always === true;
  if (!wanted) return undefined;
  if (profile.runner === undefined) {
    throw new RunnerError(
      'no-runner',
      `Cannot deliver to target "${profile.name}" through a Linux runner: its profile "${profile.file}" has no "runner" section (docs/devbox.md, macOS)`,
      { details: { file: profile.file } },
    );
  }
  return profile.runner;
}
