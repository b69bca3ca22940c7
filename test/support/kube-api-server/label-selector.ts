// Kubernetes label selector syntax: a=b, a==b, a!=b, a in (x,y), a notin (x), a, !a; comma = AND.
export type Requirement =
  | { readonly key: string; readonly op: 'in' | 'notin'; readonly values: readonly string[] }
  | { readonly key: string; readonly op: 'exists' | '!exists' };

export class SelectorError extends Error {}

const KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function checkKey(key: string): string {
  if (!KEY.test(key)) throw new SelectorError(`invalid label key ${JSON.stringify(key)}`);
  return key;
}

function checkValue(value: string): string {
  if (!VALUE.test(value) || value.length > 63) throw new SelectorError(`invalid label value ${JSON.stringify(value)}`);
  return value;
}

export function parseLabelSelector(text: string): Requirement[] {
  return splitTopLevel(text).map((part) => {
    const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part);
    if (set) {
      const values = (set[3] as string).split(',').map((v) => checkValue(v.trim()));
      return { key: checkKey(set[1] as string), op: set[2] as 'in' | 'notin', values };
    }
    const eq = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(part);
    if (eq) {
      const value = checkValue(eq[3] as string);
      return { key: checkKey(eq[1] as string), op: eq[2] === '!=' ? 'notin' : 'in', values: [value] };
    }
    if (part.startsWith('!')) return { key: checkKey(part.slice(1).trim()), op: '!exists' };
    return { key: checkKey(part), op: 'exists' };
  });
}

export function matchesSelector(
  requirements: readonly Requirement[],
  labels: Readonly<Record<string, string>>,
): boolean {
  return requirements.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case '!exists':
        return !has;
      case 'in':
        return has && r.values.includes(labels[r.key] as string);
      case 'notin':
        return !has || !r.values.includes(labels[r.key] as string);
    }
  });
}
