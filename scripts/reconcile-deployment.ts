#!/usr/bin/env node
// Host reconciler (docs/host-reconcile.md); the command is commands/reconcile-command.ts.
import './lib/cli/require-node.ts';
import { enableHostCompileCache } from './lib/host/host-compile-cache.ts';
import { skipZodLocales } from './lib/errors/skip-zod-locales.ts';
import { exitOnSavedHelp } from './lib/cli/saved-help.ts';

// --help prints the text cmd-ts rendered when it was saved: it loads no cmd-ts.
const HELP = new URL('./help/reconcile-deployment.json', import.meta.url);

// The timer runs this every few minutes: enable the compile cache, and leave out zod's languages, before the command's modules load.
enableHostCompileCache();
skipZodLocales();
const argv = process.argv.slice(2);
// The timer's own calls (no argument, `--plan`, `--json`) are read by Node's own parser: cmd-ts loads for anything else.
const [{ plainArgv }, { RECONCILE_PLAIN, plainReconcileArgs }] = await Promise.all([
  import('./lib/cli/plain-argv.ts'),
  import('./commands/reconcile-plain.ts'),
]);
const plain = plainArgv(argv, RECONCILE_PLAIN);
if (plain !== undefined) {
  const [{ runHandler }, { reconcileHandler }] = await Promise.all([
    import('./commands/run-handler.ts'),
    import('./commands/reconcile-handler.ts'),
  ]);
  await runHandler('reconcile-deployment', () => reconcileHandler(plainReconcileArgs(plain)));
} else if (argv[0] === 'status') {
  await exitOnSavedHelp(HELP, 'status', argv.slice(1));
  const { runCli } = await import('./lib/cli/run-cli.ts');
  const { statusCommand } = await import('./commands/status-command.ts');
  await runCli('reconcile-deployment', statusCommand, argv.slice(1));
} else {
  await exitOnSavedHelp(HELP, '', argv);
  const { runCli } = await import('./lib/cli/run-cli.ts');
  const { reconcileCommand } = await import('./commands/reconcile-command.ts');
  await runCli('reconcile-deployment', reconcileCommand, argv);
}
