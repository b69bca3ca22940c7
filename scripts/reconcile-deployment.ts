#!/usr/bin/env node
// Host reconciler (spec: pull-deployment.md); the command itself is in lib/host/reconcile-command.ts.
import { enableHostCompileCache } from './lib/host/host-compile-cache.ts';

// The timer runs this every few minutes: enable the compile cache before the command's modules load.
enableHostCompileCache();
await import('./lib/host/reconcile-command.ts');
