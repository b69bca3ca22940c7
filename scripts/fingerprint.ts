#!/usr/bin/env node
// Fingerprints catalogue images from the working tree or a commit (spec: catalogue-and-fingerprint.md).
import './lib/cli/require-node.ts';
import './lib/cli/compile-cache.ts';
import './lib/cli/small-young-generation.ts';
import { exitOnSavedHelp } from './lib/cli/saved-help.ts';
import { skipZodLocales } from './lib/errors/skip-zod-locales.ts';

// --help prints the text cmd-ts rendered when it was saved: it loads no cmd-ts.
await exitOnSavedHelp(new URL('./help/fingerprint.json', import.meta.url), '', process.argv.slice(2));
// zod in English only, before the modules below load: its other languages are ~60 modules nothing here reads.
skipZodLocales();

// Every module below loads after the compile cache is on (static imports are compiled before any code runs).
await (await import('./lib/cli/prefetch-worktree.ts')).prefetchWorktree(process.argv);

// The calls made most (`--repo`, `--rev`, `--json`, ...) are read by Node's own parser; anything else by cmd-ts,
// loaded after the code cache is on (static imports would be compiled before it).
const argv = process.argv.slice(2);
const [{ plainArgv }, { FINGERPRINT_PLAIN, fingerprintHandler, plainFingerprintArgs }] = await Promise.all([
  import('./lib/cli/plain-argv.ts'),
  import('./commands/fingerprint-handler.ts'),
]);
const plain = plainArgv(argv, FINGERPRINT_PLAIN);
if (plain !== undefined) {
  const { runHandler } = await import('./commands/run-handler.ts');
  await runHandler('fingerprint', () => fingerprintHandler(plainFingerprintArgs(plain)));
} else {
  const { runCli } = await import('./lib/cli/run-cli.ts');
  const { fingerprintCommand } = await import('./commands/fingerprint-command.ts');
  await runCli('fingerprint', fingerprintCommand, argv);
}
