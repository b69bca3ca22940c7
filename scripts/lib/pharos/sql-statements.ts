// The top-level statements of a migration as PostgreSQL 15 splits the query string it receives, by the scanner's rules
// (tatsuo-ishii/postgres@ff0c3a45059de81588f269560d60c33fcbfc35b5:src/backend/parser/scan.l; the string, identifier,
// comment and dollar-quote rules below are those of the 15 branch, with standard_conforming_strings on, which the
// runners set before every migration):
// - whitespace [ \t\n\r\f], `--` to the end of the line, `/* */` comments that nest (xc, xcdepth); `/*` and `--`
//   start a comment even right after operator characters (the {operator} rule stops before them);
// - 'standard' strings with '' for a quote and no backslash escapes (xq), as are N'', B'', X'' and U&'' (xus);
// - E'' strings where a backslash escapes the next character (xe: xeescape, xeoctesc, xehexesc, xeunicode);
// - "quoted identifiers" and U&"…" with "" for a quote (xd, xui);
// - $tag$ … $tag$ dollar quotes, the tag an identifier without "$" (dolqdelim), ended by the first identical delimiter;
//   `$` followed by digits is a parameter, any other `$` a character of its own (dolqfailed);
// - identifiers [A-Za-z\200-\377_][A-Za-z\200-\377_0-9$]*: a "$" inside one (t$a$) starts no dollar quote.
// The grammar (gram.y stmtmulti) ends a statement at every ";" except inside the SQL-standard body of CREATE [OR
// REPLACE] FUNCTION|PROCEDURE … BEGIN ATOMIC … END, which ends at an END that starts one of its statements.
// Unterminated literals and comments run to the end: PostgreSQL then refuses the whole string before running any of it.

export interface SqlStatement {
  /** Offset of the statement's first token. */
  readonly offset: number;
  /** Its first tokens: unquoted words upper-cased, anything else as "?". */
  readonly head: readonly string[];
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\f']);
const isIdentStart = (c: string) => /[A-Za-z_]/.test(c) || c.charCodeAt(0) >= 0x80;
const IDENT_REST = /[A-Za-z0-9_$\u0080-\uffff]*/y;
const DIGITS = /[0-9.]*/y;
const DOLLAR_QUOTE = /\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;

/** The end of a quoted run opened at `at` (a ' or "), where the quote doubled stands for itself; backslashes escape in E''. */
function quoted(sql: string, at: number, quote: string, backslash: boolean): number {
  let i = at + 1;
  while (i < sql.length) {
    const q = sql.indexOf(quote, i);
    if (q < 0) return sql.length;
    if (backslash) {
      const b = sql.indexOf('\\', i);
      if (b >= 0 && b < q) {
        i = b + 2;
        continue;
      }
    }
    if (sql[q + 1] !== quote) return q + 1;
    i = q + 2;
  }
  return sql.length;
}

function blockComment(sql: string, at: number): number {
  let depth = 0;
  let i = at + 2;
  while (i < sql.length) {
    if (sql.startsWith('/*', i)) {
      depth += 1;
      i += 2;
    } else if (sql.startsWith('*/', i)) {
      if (depth === 0) return i + 2;
      depth -= 1;
      i += 2;
    } else i += 1;
  }
  return sql.length;
}

/** Every token's kind and offset: a word (upper-cased), ";", "(", ")", or "?" for anything else. */
export function* sqlTokens(sql: string): Generator<{ readonly token: string; readonly offset: number }> {
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    const next = sql[i + 1];
    const start = i;
    let token: string | undefined = '?';
    if (WHITESPACE.has(c)) {
      i += 1;
      token = undefined;
    } else if (c === '-' && next === '-') {
      while (i < sql.length && sql[i] !== '\n' && sql[i] !== '\r') i += 1;
      token = undefined;
    } else if (c === '/' && next === '*') {
      i = blockComment(sql, i);
      token = undefined;
    } else if (/[eE]/.test(c) && next === "'") i = quoted(sql, i + 1, "'", true);
    else if (/[bBxXnN]/.test(c) && next === "'") i = quoted(sql, i + 1, "'", false);
    else if (/[uU]/.test(c) && next === '&' && (sql[i + 2] === "'" || sql[i + 2] === '"'))
      i = quoted(sql, i + 2, sql[i + 2] as string, false);
    else if (c === "'" || c === '"') i = quoted(sql, i, c, false);
    else if (c === '$') {
      DOLLAR_QUOTE.lastIndex = i;
      const delimiter = DOLLAR_QUOTE.exec(sql)?.[0];
      if (delimiter !== undefined) {
        const end = sql.indexOf(delimiter, i + delimiter.length);
        i = end < 0 ? sql.length : end + delimiter.length;
      } else {
        i += 1;
        while (i < sql.length && /[0-9]/.test(sql[i] as string)) i += 1;
      }
    } else if (isIdentStart(c)) {
      IDENT_REST.lastIndex = i + 1;
      IDENT_REST.exec(sql);
      i = IDENT_REST.lastIndex;
      // ASCII case folding only, as PostgreSQL's keyword lookup: "commıt" (dotless ı) is no COMMIT.
      token = sql.slice(start, i).replace(/[a-z]+/g, (w) => w.toUpperCase());
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(next ?? ''))) {
      DIGITS.lastIndex = i;
      DIGITS.exec(sql);
      i = DIGITS.lastIndex;
    } else {
      i += 1;
      if (c === ';' || c === '(' || c === ')') token = c;
    }
    if (token !== undefined) yield { token, offset: start };
  }
}

const ROUTINE_HEADS = [
  'CREATE FUNCTION',
  'CREATE PROCEDURE',
  'CREATE OR REPLACE FUNCTION',
  'CREATE OR REPLACE PROCEDURE',
];

/** The top-level statements of `sql`, each by its first tokens; empty statements (";;") are left out. */
export function sqlStatements(sql: string): SqlStatement[] {
  const out: SqlStatement[] = [];
  let head: string[] = [];
  let offset = 0;
  let depth = 0;
  let body: 'none' | 'start' | 'inside' = 'none';
  let previous = '';
  const isRoutine = () => ROUTINE_HEADS.some((h) => head.slice(0, h.split(' ').length).join(' ') === h);
  for (const { token, offset: at } of sqlTokens(sql)) {
    if (token === ';' && depth === 0 && body === 'none') {
      if (head.length > 0) out.push({ offset, head });
      head = [];
      previous = '';
      continue;
    }
    if (head.length === 0) offset = at;
    if (head.length < 4) head.push(token);
    if (token === '(') depth += 1;
    else if (token === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && body === 'none' && previous === 'BEGIN' && token === 'ATOMIC' && isRoutine())
      body = 'start';
    else if (depth === 0 && body !== 'none')
      body = token === ';' ? 'start' : token === 'END' && body === 'start' ? 'none' : 'inside';
    previous = token;
  }
  if (head.length > 0) out.push({ offset, head });
  return out;
}

const CONTROL = new Set(['BEGIN', 'COMMIT', 'ROLLBACK', 'END', 'ABORT', 'SAVEPOINT', 'RELEASE']);

/** The first transaction-control statement the server would run at top level (`COMMIT`, `START TRANSACTION`, …). */
export function firstTransactionControl(
  sql: string,
): { readonly statement: string; readonly line: number } | undefined {
  for (const { head, offset } of sqlStatements(sql)) {
    const [first, second] = head;
    const statement =
      first !== undefined && CONTROL.has(first)
        ? first
        : (first === 'START' || first === 'PREPARE') && second === 'TRANSACTION'
          ? `${first} TRANSACTION`
          : undefined;
    if (statement !== undefined) return { statement, line: sql.slice(0, offset).split('\n').length };
  }
  return undefined;
}
