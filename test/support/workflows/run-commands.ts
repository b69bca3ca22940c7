// Splits a workflow step's `run:` script into the commands it calls, so a test can check each one exists.

/** One simple command: its words, with `${{ … }}` expressions replaced by a placeholder word. */
export type Command = readonly string[];

const EXPRESSION = /\$\{\{[\s\S]*?\}\}/g;

function words(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/"(?:[^"\\]|\\.)*"|'[^']*'|[^\s'"]+/g)) out.push(match[0]);
  return out;
}

/** Splits on newlines, `&&`, `||`, `;` and `|` that are not inside quotes. */
function splitOutsideQuotes(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] ?? '';
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      // An escaped character inside double quotes neither ends the quote nor splits.
      const escaped = c === '\\' && quote === '"' ? (text[(i += 1)] ?? '') : '';
      current += c + escaped;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    const two = text.slice(i, i + 2);
    if (two === '&&' || two === '||') {
      parts.push(current);
      current = '';
      i += 1;
    } else if (c === '\n' || c === ';' || c === '|') {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

/** Commands of a bash script: split on newlines, `&&`, `||`, `;` and `|`, redirections and leading `VAR=x` dropped. */
export function runCommands(script: string): Command[] {
  // Expressions can hold whole flags ('--freeze'): keep their quoted string literals, which are words of the command.
  const expanded = script.replace(
    EXPRESSION,
    (expr) => ` ${[...expr.matchAll(/'([^']*)'/g)].map((m) => m[1]).join(' ')} `,
  );
  const joined = expanded.replace(/\\\n/g, ' ');
  const commands: Command[] = [];
  for (const part of splitOutsideQuotes(joined)) {
    const all = words(part.trim());
    if (all.length === 0 || all[0]?.startsWith('#')) continue;
    const withoutRedirects = all.filter((w, i) => !/^\d?>>?|^</.test(w) && !/^\d?>>?$|^<$/.test(all[i - 1] ?? ''));
    const start = withoutRedirects.findIndex((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w));
    if (start >= 0) commands.push(withoutRedirects.slice(start));
  }
  return commands;
}
