import { posix } from 'node:path';
import picomatch from 'picomatch';

/** Attributes that make the bytes on disk differ from the stored blob. */
export const CONVERTING_ATTRIBUTES = ['filter', 'eol', 'text', 'crlf', 'ident', 'working-tree-encoding'] as const;

export interface AttributeRule {
  /** Repo-relative path of the `.gitattributes` file. */
  readonly file: string;
  readonly line: number;
  readonly matches: (path: string) => boolean;
  /** Attribute → `set`, `unset`, `unspecified` or a value, as the line states it. */
  readonly states: ReadonlyMap<string, string>;
}

export interface AttributeSource {
  readonly file: string;
  readonly line: number;
  /** `filter=lfs`, `text`, `eol=crlf`, … */
  readonly setting: string;
}

const MACROS: Readonly<Record<string, readonly string[]>> = { binary: ['-diff', '-merge', '-text'] };

function stateOf(token: string): [string, string] {
  if (token.startsWith('-')) return [token.slice(1), 'unset'];
  if (token.startsWith('!')) return [token.slice(1), 'unspecified'];
  const eq = token.indexOf('=');
  return eq < 0 ? [token, 'set'] : [token.slice(0, eq), token.slice(eq + 1)];
}

/** The rules of one `.gitattributes` (gitignore-style patterns relative to its folder; no negation). */
export function parseGitattributes(text: string, file: string): AttributeRule[] {
  const dir = posix.dirname(file) === '.' ? '' : `${posix.dirname(file)}/`;
  const rules: AttributeRule[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const [pattern, ...tokens] = raw.trim().split(/[ \t]+/);
    if (
      pattern === undefined ||
      pattern === '' ||
      pattern.startsWith('#') ||
      pattern.startsWith('[attr]') ||
      pattern.startsWith('"') ||
      pattern.endsWith('/')
    )
      return;
    const states = new Map<string, string>();
    for (const token of tokens.flatMap((t) => MACROS[t] ?? [t])) states.set(...stateOf(token));
    const anchored = pattern.includes('/');
    const glob = picomatch(anchored ? pattern.replace(/^\//, '') : pattern, {
      dot: true,
      nobrace: true,
      noextglob: true,
      nonegate: true,
    });
    const matches = (path: string) => {
      if (!path.startsWith(dir)) return false;
      const rel = path.slice(dir.length);
      return anchored ? glob(rel) : glob(posix.basename(rel));
    };
    rules.push({ file, line: i + 1, matches, states });
  });
  return rules;
}

/**
 * Converting attributes in effect for `path`, each with the line that set it last: deeper files
 * override shallower ones, later lines earlier ones. `rules` must be ordered root first.
 */
export function convertingAttributes(path: string, rules: readonly AttributeRule[]): AttributeSource[] {
  const winner = new Map<string, { rule: AttributeRule; state: string }>();
  for (const rule of rules) {
    if (!rule.matches(path)) continue;
    for (const name of CONVERTING_ATTRIBUTES) {
      const state = rule.states.get(name);
      if (state !== undefined) winner.set(name, { rule, state });
    }
  }
  const out: AttributeSource[] = [];
  for (const [name, { rule, state }] of winner) {
    if (state === 'unset' || state === 'unspecified') continue;
    out.push({ file: rule.file, line: rule.line, setting: state === 'set' ? name : `${name}=${state}` });
  }
  return out;
}
