// Whether an argv is one cmd-ts answers with the command's help, decided before cmd-ts loads (node_modules/cmd-ts:
// runner.ts tokenizes, newparser/parser.ts reads values, circuitbreaker.ts prints help for exactly one --help/-h).

/** The names a command registers with cmd-ts's parser: a registered option reads the next argument as its value. */
export type RegisteredNames = {
  readonly longOptions: readonly string[];
  readonly shortOptions: readonly string[];
  readonly longFlags: readonly string[];
  readonly shortFlags: readonly string[];
};

/** `help` when cmd-ts would print the help, `undecided` for any argv it handles otherwise or this reading does not model. */
export type HelpRequest = 'help' | 'undecided';

/** Whether `--key` (or the last letter of `-abc`) takes the next argument as its value, as cmd-ts's parser decides. */
function readsNext(
  key: string,
  options: readonly string[],
  flags: readonly string[],
  next: string | undefined,
): boolean {
  if (next === undefined) return false;
  if (options.includes(key)) return true;
  return !flags.includes(key) && !next.startsWith('-');
}

/** `help` only for argv shapes read exactly like cmd-ts: exactly one bare `--help` or `-h` not taken as a value. */
export function helpRequest(argv: readonly string[], names: RegisteredNames): HelpRequest {
  // A command that took `--help` or `-h` for an option of its own would read its value: cmd-ts decides.
  if (names.longOptions.includes('help') || names.shortOptions.includes('h')) return 'undecided';
  let helps = 0;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    if (arg === '--') break; // the rest are positionals
    // Empty arguments and `-a-b` tokenize in ways left to cmd-ts.
    if (arg === '' || next === '') return 'undecided';
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const key = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const valued = eq !== -1 || readsNext(key, names.longOptions, names.longFlags, next);
      // `--help=x` and `--help x` (cmd-ts registers no help flag, so it may read a value) are left to cmd-ts.
      if (key === 'help' && valued) return 'undecided';
      if (key === 'help') helps++;
      else if (eq === -1 && valued) i++;
    } else if (arg.startsWith('-') && arg.length > 1) {
      const eq = arg.indexOf('=');
      const keys = [...(eq === -1 ? arg.slice(1) : arg.slice(1, eq))];
      if (keys.length === 0 || keys.includes('-')) return 'undecided';
      const last = keys[keys.length - 1] as string;
      const valued = eq !== -1 || readsNext(last, names.shortOptions, names.shortFlags, next);
      if (last === 'h' && valued) return 'undecided';
      helps += keys.filter((key) => key === 'h').length;
      if (eq === -1 && valued) i++;
    }
  }
  return helps === 1 ? 'help' : 'undecided';
}
