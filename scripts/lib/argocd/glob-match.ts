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
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) return undefined;
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith('!');
      if (negate) body = body.slice(1);
      if (body === '') return undefined;
      out += `[${negate ? '^' : ''}${body.replace(/[\\\]^]/g, (m) => `\\${m}`)}]`;
      i = end;
    } else out += escape(c);
  }
  if (braces !== 0) return undefined;
  try {
    return new RegExp(`^(?:${out})$`, 's');
  } catch {
    return undefined;
  }
}

/** An invalid pattern matches nothing, as in Argo CD. */
export function globMatch(pattern: string, value: string): boolean {
  if (pattern === '*') return true;
  if (!cache.has(pattern)) cache.set(pattern, compile(pattern));
  return cache.get(pattern)?.test(value) ?? false;
}
