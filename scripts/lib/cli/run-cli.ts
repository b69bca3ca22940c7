import { runSafely } from 'cmd-ts';
import type { Runner } from 'cmd-ts/dist/cjs/runner.js';
import { exitOnError } from './exit-on-error.ts';
import { CLI_HELP_ENV } from './saved-help.ts';

/** Handler result: the exit status, or nothing for 0. */
export type ExitStatus = number | void;

/** What scripts/sync-help.ts saves of a command: its help as cmd-ts renders it (coloured per FORCE_COLOR), its names. */
async function describe(command: Runner<any, Promise<ExitStatus>>): Promise<void> {
  const names = {
    forceFlagLongNames: new Set<string>(),
    forceFlagShortNames: new Set<string>(),
    forceOptionLongNames: new Set<string>(),
    forceOptionShortNames: new Set<string>(),
  };
  command.register(names);
  const help = await runSafely(command, ['--help']);
  process.stdout.write(
    `${JSON.stringify({
      description: (command as { description?: string }).description ?? '',
      names: {
        longOptions: [...names.forceOptionLongNames],
        shortOptions: [...names.forceOptionShortNames],
        longFlags: [...names.forceFlagLongNames],
        shortFlags: [...names.forceFlagShortNames],
      },
      help: help._tag === 'error' ? help.error.config.message : '',
    })}\n`,
  );
}

/** The one top-level handler: usage errors exit 2, toolkit errors their own status, anything else 1. */
export async function runCli(
  program: string,
  command: Runner<any, Promise<ExitStatus>>,
  argv: readonly string[] = process.argv.slice(2),
): Promise<void> {
  if (process.env[CLI_HELP_ENV] === 'describe') return describe(command);
  try {
    const result = await runSafely(command, [...argv]);
    if (result._tag === 'error') {
      const { exitCode, message, into } = result.error.config;
      (into === 'stdout' ? process.stdout : process.stderr).write(`${message}\n`);
      process.exitCode = exitCode === 0 ? 0 : 2;
      return;
    }
    process.exitCode = (await result.value) ?? 0;
  } catch (error) {
    exitOnError(program, error);
  }
}
