import { parseArgs } from 'node:util';

/** The long options (each takes a value) and flags a command's callers write most. */
export interface PlainArgvSpec {
  readonly options?: readonly string[];
  readonly flags?: readonly string[];
}

export interface PlainArgv {
  readonly options: Readonly<Record<string, string>>;
  readonly flags: ReadonlySet<string>;
}

/**
 * Reads the argument vectors a command's callers write most, with Node's own parser, so that the command need not
 * load cmd-ts (about 27 ms of a start): the spec's long options, each at most once, with a value (`--repo x` or
 * `--repo=x`), and its flags, bare. Anything else (a short or unknown name, a repeat, a positional, `--`, an
 * empty value or one that starts with `-`, `--help`) gives undefined: cmd-ts then reads the vector, with its own
 * meanings and messages.
 */
export function plainArgv(argv: readonly string[], spec: PlainArgvSpec): PlainArgv | undefined {
  const optionNames = spec.options ?? [];
  const flagNames = spec.flags ?? [];
  let tokens;
  try {
    ({ tokens } = parseArgs({
      args: [...argv],
      options: Object.fromEntries([
        ...optionNames.map((name) => [name, { type: 'string' as const }]),
        ...flagNames.map((name) => [name, { type: 'boolean' as const }]),
      ]),
      strict: true,
      allowPositionals: false,
      tokens: true,
    }));
  } catch {
    return undefined; // an unknown or malformed argument: cmd-ts says what is wrong with it
  }
  const options: Record<string, string> = {};
  const flags = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.rawName !== `--${token.name}`) return undefined;
    if (Object.hasOwn(options, token.name) || flags.has(token.name)) return undefined;
    if (token.value === undefined) flags.add(token.name);
    else if (token.value === '' || token.value.startsWith('-')) return undefined;
    else options[token.name] = token.value;
  }
  return { options, flags };
}
