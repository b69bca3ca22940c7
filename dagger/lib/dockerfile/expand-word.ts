/** Looks a variable up in the build scope; undefined when it is not set (expands to empty). */
export type VariableLookup = (name: string) => string | undefined;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

function expandBraced(body: string, lookup: VariableLookup, escape: string): string {
  const name = NAME.exec(body)?.[0] ?? '';
  const rest = body.slice(name.length);
  const value = lookup(name);
  const op = /^(:?[-+?])/.exec(rest)?.[1];
  if (op === undefined) return value ?? ''; // plain ${NAME}; other operators (#, %) keep the value
  const word = expandWord(rest.slice(op.length), lookup, { escape, quotes: false });
  const unset = op.startsWith(':') ? value === undefined || value === '' : value === undefined;
  if (op.endsWith('-')) return unset ? word : (value ?? '');
  if (op.endsWith('+')) return unset ? '' : word;
  return value ?? '';
}

/** Index of the `}` closing the `${` that starts before `from`, counting nested `${`. */
function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/**
 * BuildKit's word expansion for COPY/ADD/RUN --mount sources: `$NAME`, `${NAME}`, `${NAME:-w}`,
 * `${NAME:+w}`, the escape character, and (in shell form) single and double quotes.
 */
export function expandWord(word: string, lookup: VariableLookup, options: { escape: string; quotes: boolean }): string {
  let out = '';
  let quote: '' | "'" | '"' = '';
  for (let i = 0; i < word.length; i++) {
    const c = word[i] ?? '';
    if (options.quotes && quote === '' && (c === "'" || c === '"')) {
      quote = c;
      continue;
    }
    if (quote !== '' && c === quote) {
      quote = '';
      continue;
    }
    if (quote === "'") {
      out += c;
      continue;
    }
    if (c === options.escape && i + 1 < word.length) {
      out += word[++i] ?? '';
      continue;
    }
    if (c === '$') {
      if (word[i + 1] === '{') {
        const end = closingBrace(word, i + 2);
        if (end < 0) {
          out += word.slice(i);
          break;
        }
        out += expandBraced(word.slice(i + 2, end), lookup, options.escape);
        i = end;
        continue;
      }
      const name = NAME.exec(word.slice(i + 1))?.[0];
      if (name !== undefined) {
        out += lookup(name) ?? '';
        i += name.length;
        continue;
      }
    }
    out += c;
  }
  return out;
}
