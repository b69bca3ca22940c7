import type { z } from 'zod';

/** `images.api.inputs[1]` from a zod issue path. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

function show(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Line of the node at a key path in the source text, when the caller can tell. */
export type LineOf = (path: readonly PropertyKey[]) => number | undefined;

/**
 * One line per issue: `file:line: key.path: message (value "x")`, every bad field reported;
 * the line appears when `lineOf` knows it. A missing required field says "required".
 */
export function describeZodIssues(
  file: string,
  input: unknown,
  error: z.ZodError,
  lineOf: LineOf = () => undefined,
): string[] {
  const at = (path: readonly PropertyKey[]) => {
    const line = lineOf(path);
    return line === undefined ? `${file}:` : `${file}:${line}:`;
  };
  return error.issues.map((issue) => {
    const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    if (unknownKeys.length > 0) {
      return unknownKeys
        .map((key) => `${at([...issue.path, key])} ${formatIssuePath([...issue.path, key])}: unknown key`)
        .join('\n');
    }
    if (issue.code === 'invalid_key') {
      const inner = issue.issues.map((i) => i.message).join('; ');
      return `${at(issue.path)} ${formatIssuePath(issue.path)}: invalid key: ${inner}`;
    }
    const value = valueAt(input, issue.path);
    if (issue.code === 'invalid_type' && value === undefined)
      return `${at(issue.path)} ${formatIssuePath(issue.path)}: is required (expected ${issue.expected})`;
    return `${at(issue.path)} ${formatIssuePath(issue.path)}: ${issue.message} (value ${show(value)})`;
  });
}
