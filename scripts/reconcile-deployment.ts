#!/usr/bin/env node
// Host reconciler (docs/host-reconcile.md); the command is commands/reconcile-command.ts.
import './lib/cli/require-node.ts';
import { enableHostCompileCache } from './lib/host/host-compile-cache.ts';

// The timer runs this every few minutes: enable the compile cache before the command's modules load.
enableHostCompileCache();
const { runCli } = await import('./lib/cli/run-cli.ts');
const argv = process.argv.slice(2);
if (argv[0] === 'status') {
  const { statusCommand } = await import('./commands/status-command.ts');
  await runCli('reconcile-deployment', statusCommand, argv.slice(1));
} else {
  const { reconcileCommand } = await import('./commands/reconcile-command.ts');
  await runCli('reconcile-deployment', reconcileCommand, argv);
}
