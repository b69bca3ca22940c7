// Every cmd-ts command of the entry points, by the arguments that choose it: scripts/sync-help.ts saves each one's
// help in scripts/help/<entry>.json under those arguments joined by spaces ('' for an entry point's only command).

/** An entry point (scripts/<entry>.ts) and the arguments before a command's own that select each of its commands. */
export type HelpEntry = { readonly entry: string; readonly commands: readonly (readonly string[])[] };

export const SAVED_HELP: readonly HelpEntry[] = [
  { entry: 'check-platform-gitops', commands: [[]] },
  { entry: 'ci', commands: [['image-map'], ['oidc-token'], ['publish-lock'], ['promotion-summary']] },
  { entry: 'cluster-credentials', commands: [[]] },
  { entry: 'demo', commands: [[]] },
  {
    entry: 'devbox',
    commands: [['reconcile'], ['deploy'], ['runner-have'], ['runner-receive'], ['runner-run'], ['runner-receipt']],
  },
  { entry: 'fingerprint', commands: [[]] },
  { entry: 'prepare-release-chart', commands: [[], ['--produce'], ['--evidence']] },
  { entry: 'prepare-release-lock', commands: [[], ['--produce']] },
  { entry: 'promote', commands: [[], ['refresh']] },
  { entry: 'provision-contexts', commands: [[]] },
  { entry: 'reconcile-deployment', commands: [[], ['status']] },
  {
    entry: 'takeover',
    commands: [['plan'], ['start'], ['status'], ['release'], ['watch'], ['stop'], ['logs']],
  },
];

/** The key of a command in its entry's file. */
export const helpKey = (selector: readonly string[]): string => selector.join(' ');
