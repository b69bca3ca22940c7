#!/usr/bin/env node
// Saves each cmd-ts command's help as cmd-ts renders it (plain and coloured) in scripts/help/<entry>.json, which the
// entry points print for --help without loading cmd-ts (docs/cli-help.md). `--check` changes nothing and fails when a
// saved text differs from cmd-ts's; test/unit/cli/saved-help.test.ts runs it.
import './lib/cli/require-node.ts';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLI_HELP_ENV } from './lib/cli/saved-help.ts';
import type { SavedHelp, SavedHelpFile } from './lib/cli/saved-help.ts';
import { helpKey, SAVED_HELP } from './commands/saved-help-commands.ts';

const SCRIPTS = import.meta.dirname;
const HELP = join(SCRIPTS, 'help');
const run = promisify(execFile);

/** One command as its entry point describes it (run-cli.ts's describe mode: the entry point runs no command). */
async function described(entry: string, selector: readonly string[]): Promise<SavedHelp> {
  const { stdout } = await run(process.execPath, [join(SCRIPTS, `${entry}.ts`), ...selector, '--help'], {
    env: { ...process.env, [CLI_HELP_ENV]: 'describe' },
  });
  return JSON.parse(stdout) as SavedHelp;
}

async function savedFile(entry: string, selectors: readonly (readonly string[])[]): Promise<string> {
  const all = await Promise.all(selectors.map((selector) => described(entry, selector)));
  const commands = Object.fromEntries(selectors.map((selector, i) => [helpKey(selector), all[i] as SavedHelp]));
  const file: SavedHelpFile = { schema: 1, commands };
  return `${JSON.stringify(file, null, 2)}\n`;
}

const USAGE =
  'usage: sync-help.ts [--check]\n\n' +
  "Saves each command's --help text, as cmd-ts renders it, in scripts/help/<entry>.json (docs/cli-help.md).\n" +
  '  --check     change nothing; exit 1 when a saved text differs from what cmd-ts renders\n' +
  '  --help, -h  this text\n\nExit status: 0 done (or current), 1 stale (with --check), 2 usage error.\n';
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const unknown = args.filter((arg) => arg !== '--check');
if (unknown.length > 0) {
  process.stderr.write(`sync-help: unknown argument "${unknown[0]}"\n${USAGE}`);
  process.exit(2);
}
const check = args.includes('--check');
const stale: string[] = [];
mkdirSync(HELP, { recursive: true });
for (const { entry, commands } of SAVED_HELP) {
  const file = join(HELP, `${entry}.json`);
  const text = await savedFile(entry, commands);
  let before = '';
  try {
    before = readFileSync(file, 'utf8');
  } catch {}
  if (before === text) continue;
  stale.push(`scripts/help/${entry}.json`);
  if (!check) writeFileSync(file, text);
}
if (check && stale.length > 0) {
  process.stderr.write(
    `saved --help texts differ from cmd-ts's (${stale.length}): run \`node scripts/sync-help.ts\`\n${stale.join('\n')}\n`,
  );
  process.exit(1);
}
process.stdout.write(
  check
    ? `scripts/help/ is current: ${SAVED_HELP.length} entry points\n`
    : `scripts/help/: ${SAVED_HELP.length} entry points (${stale.length} written)\n`,
);
