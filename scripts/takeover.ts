#!/usr/bin/env node
// Takeover (spec: devbox-receipt-and-lease.md): run services from this checkout while Argo CD keeps its hands off them.
// The commands are commands/takeover/*-command.ts; each loads only what it needs.
import './lib/cli/require-node.ts';
import './lib/cli/compile-cache.ts';
import { exitOnSavedHelp } from './lib/cli/saved-help.ts';
import { skipZodLocales } from './lib/errors/skip-zod-locales.ts';

const [sub, ...rest] = process.argv.slice(2);
// `takeover <command> --help` prints the text cmd-ts rendered when it was saved: it loads no cmd-ts.
if (sub !== undefined) await exitOnSavedHelp(new URL('./help/takeover.json', import.meta.url), sub, rest);
// zod in English only, before the modules below load: its other languages are ~60 modules nothing here reads.
skipZodLocales();

// plan and start begin with the working tree's snapshot: start it now, while the modules below load (after the
// compile cache is on: static imports are compiled before any code runs).
if (process.argv[2] === 'plan' || process.argv[2] === 'start')
  await (await import('./lib/cli/prefetch-worktree.ts')).prefetchWorktree(process.argv);

// Loaded after the code cache is on: static imports would be compiled before it.
const COMMANDS = {
  plan: async () => (await import('./commands/takeover/plan-command.ts')).planCommand,
  start: async () => (await import('./commands/takeover/start-command.ts')).startCommand,
  status: async () => (await import('./commands/takeover/status-command.ts')).statusCommand,
  release: async () => (await import('./commands/takeover/release-command.ts')).releaseCommand,
  watch: async () => (await import('./commands/takeover/watch-command.ts')).watchCommand,
  stop: async () => (await import('./commands/takeover/stop-command.ts')).stopCommand,
  logs: async () => (await import('./commands/takeover/logs-command.ts')).logsCommand,
} as const;

const HELP =
  'takeover <command> [options]\n\nCommands:\n' +
  '  plan      working tree against the receipt (--explain, --json)\n' +
  '  start     take over images: lease, route or scale to zero, run here (native or Docker), follow saves; Ctrl-C hands back\n' +
  '  status    the lease, its windows, local runtimes, replacements, traffic agents, journal (--json)\n' +
  "  release   hand back from any state (--force for another checkout's lease)\n" +
  '  stop      ask the running start of this checkout to hand back, and wait (else: release)\n' +
  '  watch     follow saved files and print what each save moves (--json)\n' +
  "  logs      the last lines of each local runtime's log (--lines N)\n\n";

// `plan` runs on every save (the watcher, an editor's task): its calls are read by Node's own parser, not cmd-ts.
const plainPlan = sub === 'plan' ? await import('./commands/takeover/plan-handler.ts') : undefined;
const plain = plainPlan && (await import('./lib/cli/plain-argv.ts')).plainArgv(rest, plainPlan.PLAN_PLAIN);

if (plainPlan !== undefined && plain !== undefined) {
  const { runHandler } = await import('./commands/run-handler.ts');
  await runHandler('takeover plan', () => plainPlan.planHandler(plainPlan.plainPlanArgs(plain)));
} else if (sub !== undefined && Object.hasOwn(COMMANDS, sub)) {
  const { runCli } = await import('./lib/cli/run-cli.ts');
  await runCli(`takeover ${sub}`, await COMMANDS[sub as keyof typeof COMMANDS](), rest);
} else if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
  const { EXIT_CODES } = await import('./commands/takeover/exit-codes.ts');
  process.stdout.write(`${HELP}${EXIT_CODES}\n`);
  process.exitCode = sub === undefined ? 2 : 0;
} else {
  process.stderr.write(`takeover: error [usage]: unknown command "${sub}" (try: takeover --help)\n`);
  process.exitCode = 2;
}
