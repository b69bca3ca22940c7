// gitignore(5) as git applies it: per-line patterns (negation, trailing `/` for folders only, a `/` anywhere else
// anchoring to the file's folder, `*` `?` `[...]` within one path segment, `**` across segments), the last
// matching line of a file winning, deeper files before shallower ones, then info/exclude, then core.excludesFile.

interface Pattern {
  readonly negative: boolean;
  readonly dirOnly: boolean;
  /** No `/` in it: matched against the name alone, at any depth. */
  readonly anyDepth: boolean;
  readonly re: RegExp;
}

export interface IgnoreFile {
  /** Folder the patterns are relative to: `` or `a/b/` (from the top of the working tree). */
  readonly base: string;
  readonly patterns: readonly Pattern[];
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: 'A-Za-z0-9',
  alpha: 'A-Za-z',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '\\x21-\\x7e',
  lower: 'a-z',
  print: '\\x20-\\x7e',
  punct: '!-\\/:-@\\[-`{-~',
  space: ' \\t\\n\\r\\f\\v',
  upper: 'A-Z',
  xdigit: '0-9A-Fa-f',
};

const escapeChar = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** A bracket expression starting at `p[at] === '['`: [regex class, index after `]`], or undefined if malformed. */
function bracket(p: string, at: number, pathname: boolean): [string, number] | undefined {
  let i = at + 1;
  let negated = false;
  if (p[i] === '!' || p[i] === '^') {
    negated = true;
    i++;
  }
  let body = '';
  let first = true;
  for (; i < p.length; i++) {
    let c = p[i] as string;
    if (c === ']' && !first) {
      const cls = negated ? `[^${body}${pathname ? '/' : ''}]` : `[${body}]`;
      return [pathname && !negated ? `(?!/)${cls}` : cls, i + 1];
    }
    first = false;
    if (c === '[' && p[i + 1] === ':') {
      const close = p.indexOf(':]', i + 2);
      const name = close < 0 ? undefined : p.slice(i + 2, close);
      if (name !== undefined && POSIX_CLASSES[name] !== undefined) {
        body += POSIX_CLASSES[name];
        i = close + 1;
        continue;
      }
      if (name !== undefined && /^[a-z]*$/.test(name)) return undefined; // an unknown class matches nothing
    }
    if (c === '\\') {
      c = p[++i] ?? '';
      if (c === '') return undefined;
    }
    if (p[i + 1] === '-' && p[i + 2] !== undefined && p[i + 2] !== ']') {
      let hi = p[i + 2] as string;
      i += 2;
      if (hi === '\\') {
        hi = p[++i] ?? '';
        if (hi === '') return undefined;
      }
      if (hi >= c) body += `${escapeChar(c)}-${escapeChar(hi)}`;
      continue;
    }
    body += escapeChar(c);
  }
  return undefined;
}

/** wildmatch as a regular expression; with `pathname`, wildcards stop at `/` and `**` spans folders. */
function toRegExp(p: string, pathname: boolean): RegExp {
  const any = pathname ? '[^/]' : '[\\s\\S]';
  let out = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i] as string;
    if (c === '*') {
      let j = i;
      while (p[j + 1] === '*') j++;
      const double = j > i;
      const atStart = i === 0 || p[i - 1] === '/';
      const next = p[j + 1];
      if (pathname && double && atStart && (next === undefined || next === '/')) {
        if (next === '/') {
          out += '(?:[\\s\\S]*/)?'; // `**/`: zero or more whole folders
          j++;
        } else out += '[\\s\\S]*'; // trailing `/**`: everything inside
      } else out += `${any}*`;
      i = j;
    } else if (c === '?') out += any;
    else if (c === '[') {
      const cls = bracket(p, i, pathname);
      if (cls === undefined) return /$^/; // git aborts the match: the line never matches
      out += cls[0];
      i = cls[1] - 1;
    } else if (c === '\\') {
      const next = p[++i];
      if (next === undefined) return /$^/;
      out += escapeChar(next);
    } else out += escapeChar(c);
  }
  return new RegExp(`^${out}$`);
}

/** Git's trailing-space rule: unescaped trailing spaces go. */
function trimTrailingSpaces(line: string): string {
  let lastSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ') {
      if (lastSpace < 0) lastSpace = i;
    } else if (c === '\\') {
      i++;
      if (i >= line.length) return line;
      lastSpace = -1;
    } else lastSpace = -1;
  }
  return lastSpace < 0 ? line : line.slice(0, lastSpace);
}

export function parseIgnoreFile(text: string, base: string): IgnoreFile {
  const patterns: Pattern[] = [];
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  for (const raw of body.split('\n')) {
    if (raw === '' || raw.startsWith('#')) continue;
    let line = trimTrailingSpaces(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    const negative = line.startsWith('!');
    if (negative) line = line.slice(1);
    const dirOnly = line.endsWith('/');
    if (dirOnly) line = line.slice(0, -1);
    const anyDepth = !line.includes('/');
    if (!anyDepth && line.startsWith('/')) line = line.slice(1);
    if (line === '' && !anyDepth) continue;
    patterns.push({ negative, dirOnly, anyDepth, re: toRegExp(line, !anyDepth) });
  }
  return { base, patterns };
}

/** The verdict of one file: true ignored, false re-included (`!`), undefined when no line matches. */
export function matchIgnoreFile(file: IgnoreFile, path: string, name: string, isDir: boolean): boolean | undefined {
  if (file.patterns.length === 0 || !path.startsWith(file.base)) return undefined;
  const rel = path.slice(file.base.length);
  for (let i = file.patterns.length - 1; i >= 0; i--) {
    const pattern = file.patterns[i] as Pattern;
    if (pattern.dirOnly && !isDir) continue;
    if (pattern.re.test(pattern.anyDepth ? name : rel)) return !pattern.negative;
  }
  return undefined;
}

/** Whether a path is ignored: `perFolder` from the deepest folder up, then the repository's and the user's files. */
export function isIgnored(
  perFolder: readonly IgnoreFile[],
  global: readonly IgnoreFile[],
  path: string,
  name: string,
  isDir: boolean,
): boolean {
  for (let i = perFolder.length - 1; i >= 0; i--) {
    const verdict = matchIgnoreFile(perFolder[i] as IgnoreFile, path, name, isDir);
    if (verdict !== undefined) return verdict;
  }
  for (const file of global) {
    const verdict = matchIgnoreFile(file, path, name, isDir);
    if (verdict !== undefined) return verdict;
  }
  return false;
}
