// The timer's own calls of reconcile-deployment.ts (no argument, `--plan`, `--json`), read without cmd-ts.
import type { PlainArgv, PlainArgvSpec } from '../lib/cli/plain-argv.ts';

export const RECONCILE_PLAIN: PlainArgvSpec = { flags: ['plan', 'json'] };

/** What cmd-ts would read (reconcile-command.ts) from a vector plainArgv read with RECONCILE_PLAIN. */
export const plainReconcileArgs = ({ flags }: PlainArgv) => ({ plan: flags.has('plan'), json: flags.has('json') });
