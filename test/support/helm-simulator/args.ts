// Helm's command line, as far as the simulator understands it: positional arguments and the flags below. `--wait`
// takes Helm 4's values only (helm/helm@e9b85e4 pkg/cmd/flags.go waitValue.Set: watcher, hookOnly, legacy, and the
// deprecated true/false; bare `--wait` is watcher); `--history-max` defaults to HELM_MAX_HISTORY or 10
// (pkg/cli/environment.go).
import { HelmFailure } from './helm-failure.ts';

export interface HelmArgs {
  readonly positional: string[];
  readonly namespace: string;
  readonly values: string[];
  readonly set: string[];
  readonly flags: Set<string>;
  readonly output: string | undefined;
  readonly timeoutMs: number;
  readonly destination: string | undefined;
  readonly max: number | undefined;
  /** `--wait`: undefined when not given (Helm's hookOnly, or watcher with --rollback-on-failure). */
  readonly wait: 'watcher' | 'hookOnly' | undefined;
  readonly historyMax: number;
}

const WITH_VALUE = new Set([
  '--namespace',
  '-n',
  '--values',
  '-f',
  '--set',
  '--timeout',
  '--output',
  '-o',
  '--destination',
  '-d',
  '--max',
  '--kube-context',
  '--version',
  '--description',
  '--history-max',
  '--revision',
]);
const BOOLEAN = new Set([
  '--install',
  '--rollback-on-failure',
  '--atomic',
  '--wait-for-jobs',
  '--plain-http',
  '--keep-history',
  '--debug',
  '--dry-run',
  '--create-namespace',
]);

/** Go durations as Helm's `--timeout` takes them: `300s`, `5m0s`, `1h`. */
export function parseDuration(text: string): number {
  const re = /(\d+(?:\.\d+)?)(h|ms|m|s)/g;
  let total = 0;
  let consumed = '';
  for (const m of text.matchAll(re)) {
    total += Number(m[1]) * ({ h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as Record<string, number>)[m[2] ?? 's']!;
    consumed += m[0];
  }
  if (consumed !== text || text === '')
    throw new Error(`invalid argument "${text}" for "--timeout" flag: time: invalid duration "${text}"`);
  return total;
}

function waitStrategy(value: string): HelmArgs['wait'] {
  if (value === 'watcher' || value === 'true') return 'watcher';
  if (value === 'hookOnly' || value === 'false') return 'hookOnly';
  if (value === 'legacy') throw new HelmFailure('the Helm simulator does not model --wait=legacy (use watcher)');
  throw new HelmFailure(
    `invalid argument "${value}" for "--wait" flag: invalid wait input "${value}". Valid inputs are watcher, hookOnly, and legacy`,
  );
}

function integer(value: string, flag: string): number {
  if (!/^-?\d+$/.test(value))
    throw new HelmFailure(
      `invalid argument "${value}" for "${flag}" flag: strconv.ParseInt: parsing "${value}": invalid syntax`,
    );
  return Number(value);
}

export function parseArgs(argv: readonly string[]): HelmArgs {
  const positional: string[] = [];
  const values: string[] = [];
  const set: string[] = [];
  const flags = new Set<string>();
  let namespace = 'default';
  let output: string | undefined;
  let timeoutMs = 300_000;
  let destination: string | undefined;
  let max: number | undefined;
  let wait: HelmArgs['wait'];
  let historyMax = Number(process.env.HELM_MAX_HISTORY ?? '10');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    const name = arg.startsWith('-') && eq > 0 ? arg.slice(0, eq) : arg;
    if (name === '--wait') {
      wait = waitStrategy(eq > 0 ? arg.slice(eq + 1) : 'watcher');
      continue;
    }
    if (WITH_VALUE.has(name)) {
      const value = eq > 0 && arg.startsWith('-') ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new Error(`flag needs an argument: ${name}`);
      if (name === '--namespace' || name === '-n') namespace = value;
      else if (name === '--values' || name === '-f') values.push(value);
      else if (name === '--set') set.push(value);
      else if (name === '--timeout') timeoutMs = parseDuration(value);
      else if (name === '--output' || name === '-o') output = value;
      else if (name === '--destination' || name === '-d') destination = value;
      else if (name === '--max') max = Number(value);
      else if (name === '--history-max') historyMax = integer(value, name);
      continue;
    }
    if (BOOLEAN.has(name)) {
      flags.add(name === '--atomic' ? '--rollback-on-failure' : name);
      continue;
    }
    if (arg.startsWith('-')) throw new Error(`unknown flag: ${arg}`);
    positional.push(arg);
  }
  return { positional, namespace, values, set, flags, output, timeoutMs, destination, max, wait, historyMax };
}
