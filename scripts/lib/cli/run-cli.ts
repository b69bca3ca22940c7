import { runSafely } from 'cmd-ts';
import type { Runner } from 'cmd-ts/dist/cjs/runner.js';
import { exitOnError } from './exit-on-error.ts';
import { CLI_HELP_ENV } from './saved-help.ts';
import type { SavedHelp } from './saved-help.ts';

/** Handler result: the exit status, or nothing for 0. */
export type ExitStatus = number | void;

/** What scripts/sync-help.ts saves of a command: its help as cmd-ts renders it without and with colours, its names. */
export async function describeCommand(command: Runner<any, Promise<ExitStatus>>): Promise<SavedHelp> {
  const names = {
    forceFlagLongNames: new Set<string>(),
    forceFlagShortNames: new Set<string>(),
    forceOptionLongNames: new Set<string>(),
    forceOptionShortNames: new Set<string>(),
  };
  command.register(names);
  const render = async () => {
    const help = await runSafely(command, ['--help']);
    return help._tag === 'error' ? help.error.config.message : '';
  };
  // cmd-ts colours through this same chalk; any level above 0 gives the same text (bold, dim, italic, yellow).
  const { default: chalk } = await import('chalk');
  const level = chalk.level;
  chalk.level = 0;
  const plain = await render();
  chalk.level = 1;
  const color = await render();
  chalk.level = level;
  return {
    description: (command as { description?: string }).description ?? '',
    names: {
      longOptions: [...names.forceOptionLongNames],
      shortOptions: [...names.forceOptionShortNames],
      longFlags: [...names.forceFlagLongNames],
      shortFlags: [...names.forceFlagShortNames],
    },
    plain,
    color,
  };
}

/** The one top-level handler: usage errors exit 2, toolkit errors their own status, anything else 1. */
export async function runCli(
  program: string,
  command: Runner<any, Promise<ExitStatus>>,
  argv: readonly string[] = process.argv.slice(2),
): Promise<void> {
  if (process.env[CLI_HELP_ENV] === 'describe') {
    process.stdout.write(`${JSON.stringify(await describeCommand(command))}\n`);
    return;
  }
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
