// The part of git-config(1)'s file syntax the fingerprint reads: sections, subsections, `key = value`, bare
// booleans, quotes, escapes, comments and continued lines. What it cannot read the same way git does it refuses.
import { IndexRefusal } from './git-index.ts';

/** One `section[.subsection].key` (section and key lower-cased, as git names them) and its value (null: bare key). */
export interface ConfigItem {
  readonly key: string;
  readonly value: string | null;
}

function unquote(raw: string, file: string): string {
  let out = '';
  let quoted = false;
  let pendingSpace = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (!quoted && (c === '#' || c === ';')) break;
    if (!quoted && (c === ' ' || c === '\t')) {
      if (out !== '') pendingSpace += c; // inner runs kept, the trailing one dropped
      continue;
    }
    out += pendingSpace;
    pendingSpace = '';
    if (c === '"') quoted = !quoted;
    else if (c === '\\') {
      const next = raw[++i];
      const escapes: Record<string, string> = { n: '\n', t: '\t', b: '\b', '\\': '\\', '"': '"' };
      const value = next === undefined ? undefined : escapes[next];
      if (value === undefined) throw new IndexRefusal(`an escape git config reads differently in "${file}"`);
      out += value;
    } else out += c;
  }
  if (quoted) throw new IndexRefusal(`an unterminated quote in "${file}"`);
  return out;
}

/** Every setting of one config file, in file order. */
export function parseGitConfig(text: string, file: string): ConfigItem[] {
  const items: ConfigItem[] = [];
  let section: string | undefined;
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  for (let n = 0; n < lines.length; n++) {
    let line = (lines[n] ?? '').replace(/\r$/, '');
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && n + 1 < lines.length) line = line.slice(0, -1) + (lines[++n] ?? '');
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
    if (trimmed.startsWith('[')) {
      const header = /^\[\s*([A-Za-z0-9.-]+)\s*(?:"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(trimmed);
      if (header === null) throw new IndexRefusal(`a section header git config reads differently in "${file}"`);
      const [, name = '', sub, rest = ''] = header;
      const dot = name.indexOf('.');
      // `[a.B]` is the old spelling of `[a "b"]` (lower-cased); `[a "B"]` keeps its case.
      section =
        sub !== undefined
          ? `${name.toLowerCase()}.${sub.replace(/\\(.)/g, '$1')}`
          : dot < 0
            ? name.toLowerCase()
            : `${name.slice(0, dot).toLowerCase()}.${name.slice(dot + 1).toLowerCase()}`;
      const after = rest.trim();
      if (after !== '' && !after.startsWith('#') && !after.startsWith(';')) {
        n--; // `[core] filemode = false` on one line: read the rest as the next line
        lines[n + 1] = after;
      }
      continue;
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(=(.*))?$/.exec(trimmed);
    if (entry === null || section === undefined)
      throw new IndexRefusal(`a line git config reads differently in "${file}"`);
    const [, key = '', assignment, raw = ''] = entry;
    items.push({ key: `${section}.${key.toLowerCase()}`, value: assignment === undefined ? null : unquote(raw, file) });
  }
  return items;
}
