// `--help` from the text cmd-ts rendered when it was saved (scripts/sync-help.ts), so a help request loads no cmd-ts.
import { readFileSync } from 'node:fs';
import { isatty } from 'node:tty';
import { helpRequest } from './help-request.ts';
import type { RegisteredNames } from './help-request.ts';

/** One command's saved help: its cmd-ts rendering without and with colours, and what its parser registers. */
export type SavedHelp = { description: string; names: RegisteredNames; plain: string; color: string };

/** A `scripts/help/<entry>.json` file: each command of the entry point under the key its dispatch gives it. */
export type SavedHelpFile = { schema: 1; commands: Record<string, SavedHelp> };

/** `cmd-ts`: the saved texts are ignored and cmd-ts prints; `describe`: run-cli.ts prints what sync-help.ts saves. */
export const CLI_HELP_ENV = 'HEPHAESTUS_CLI_HELP';

/** An entry point's saved help; undefined when the file is missing or turned off (cmd-ts then prints as before). */
export function readSavedHelp(file: URL): SavedHelpFile | undefined {
  if (process.env[CLI_HELP_ENV] !== undefined) return undefined;
  try {
    // No zod here: loading it would cost more than cmd-ts; sync-help.ts writes the file and --check proves it current.
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<SavedHelpFile>;
    return saved.schema === 1 && typeof saved.commands === 'object' ? (saved as SavedHelpFile) : undefined;
  } catch {
    return undefined;
  }
}

/** The saved help of `key`; undefined when the file or the key is missing. */
export function savedHelp(file: URL, key: string): SavedHelp | undefined {
  const saved = readSavedHelp(file)?.commands[key];
  return typeof saved?.plain === 'string' && typeof saved.color === 'string' ? saved : undefined;
}

/** Writes `text` and exits with `status` once the stream has taken it (a pipe may be asynchronous: macOS). */
export async function exitAfterWriting(stream: NodeJS.WriteStream, text: string, status: number): Promise<never> {
  await new Promise<void>((resolve) => stream.write(text, () => resolve()));
  process.exit(status);
}

/**
 * Whether cmd-ts would colour stdout: chalk's own detection, loaded only when it could say yes (chalk's
 * supports-color colours no pipe or file unless FORCE_COLOR, a --color flag or Azure Pipelines' TF_BUILD says so).
 */
async function colours(): Promise<boolean> {
  const forced =
    'FORCE_COLOR' in process.env ||
    'TF_BUILD' in process.env ||
    process.argv.some((arg) => arg.startsWith('--color') || arg.startsWith('--no-color'));
  if (!forced && !isatty(1)) return false;
  const { default: chalk } = await import('chalk');
  return chalk.level > 0;
}

/**
 * When cmd-ts would print the help of `key` for `argv`: prints the saved text and exits 0 (before the entry point
 * loads anything more); else returns and the entry point goes on as before.
 */
export async function exitOnSavedHelp(file: URL, key: string, argv: readonly string[]): Promise<void> {
  const saved = savedHelp(file, key);
  if (saved === undefined || helpRequest(argv, saved.names) !== 'help') return;
  await exitAfterWriting(process.stdout, `${(await colours()) ? saved.color : saved.plain}\n`, 0);
}
