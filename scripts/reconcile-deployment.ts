#!/usr/bin/env node
// Host reconciler (spec: pull-deployment.md); the command is lib/host/reconcile-command.ts.
import './lib/cli/require-node.ts';
import { enableHostCompileCache } from './lib/host/host-compile-cache.ts';

// The timer runs this every few minutes: enable the compile cache before the command's modules load.
enableHostCompileCache();
const { runCli } = await import('./lib/cli/run-cli.ts');
const { reconcileCommand } = await import('./lib/host/reconcile-command.ts');
await runCli('reconcile-deployment', reconcileCommand);
