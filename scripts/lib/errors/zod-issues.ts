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

/** One line per issue: `file: key.path: message (value "x")`, every bad field reported. */
export function describeZodIssues(file: string, input: unknown, error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    if (unknownKeys.length > 0) {
      return unknownKeys
        .map((key) => `${file}: ${formatIssuePath([...issue.path, key])}: unknown key`)
        .join('\n');
    }
    if (issue.code === 'invalid_key') {
      const inner = issue.issues.map((i) => i.message).join('; ');
      return `${file}: ${formatIssuePath(issue.path)}: invalid key: ${inner}`;
    }
    const value = valueAt(input, issue.path);
    const shown = issue.code === 'invalid_type' && value === undefined ? '' : ` (value ${show(value)})`;
    return `${file}: ${formatIssuePath(issue.path)}: ${issue.message}${shown}`;
  });
}
