// Argo CD matches window selectors with gobwas/glob without separators: `*` also crosses `/` (cluster URLs).
const cache = new Map<string, RegExp | undefined>();

function escape(c: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(c) ? `\\${c}` : c;
}

function compile(pattern: string): RegExp | undefined {
  let out = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\') {
      if (i + 1 >= pattern.length) return undefined;
      out += escape(pattern[++i] as string);
    } else if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else if (c === '[') {
      const bracket = compileBracket(pattern, i);
      if (bracket === undefined) return undefined;
      out += bracket.regex;
      i = bracket.end;
    } else out += escape(c);
  }
  if (braces !== 0) return undefined;
  try {
    return new RegExp(`^(?:${out})$`, 's');
  } catch {
    return undefined;
  }
}

// gobwas/glob's lexer: `[` [`!`] then either one range `lo-hi` followed by `]`, or a list of (escapable) characters
// up to `]`. So `[a-cx]` and `[a-]` are invalid patterns, `[-a]` and `[ab-]` are lists.
function compileBracket(pattern: string, open: number): { regex: string; end: number } | undefined {
  let j = open + 1;
  const negate = pattern[j] === '!';
  if (negate) j++;
  const cls = (body: string) => `[${negate ? '^' : ''}${body}]`;
  const lo = pattern[j];
  if (lo === undefined) return undefined;
  if (pattern[j + 1] === '-') {
    const hi = pattern[j + 2];
    if (hi === undefined || pattern[j + 3] !== ']' || lo > hi) return undefined;
    return { regex: cls(`${classChar(lo)}-${classChar(hi)}`), end: j + 3 };
  }
  let chars = '';
  let k = j;
  for (; k < pattern.length && pattern[k] !== ']'; k++) {
    if (pattern[k] === '\\') k++;
    if (k < pattern.length) chars += pattern[k];
  }
  if (k >= pattern.length || chars === '') return undefined;
  return { regex: cls([...chars].map(classChar).join('')), end: k };
}

const classChar = (c: string) => (/[\\\]^[-]/.test(c) ? `\\${c}` : c);

/** An invalid pattern matches nothing, as in Argo CD. */
export function globMatch(pattern: string, value: string): boolean {
  if (pattern === '*') return true;
  if (!cache.has(pattern)) cache.set(pattern, compile(pattern));
  return cache.get(pattern)?.test(value) ?? false;
}
