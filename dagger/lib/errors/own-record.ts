import { z } from 'zod';

/** A prototype-free object: `constructor`, `toString` or `__proto__` are keys like any other, never inherited members. */
export function emptyRecord<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/**
 * `z.record` for keys from outside, into a prototype-free object: zod's own record assigns into `{}`, so a
 * `"__proto__"` key vanishes (it sets the prototype) and lookups of `constructor` find Object's. Issue paths name the key.
 */
export function ownRecord<V>(key: z.ZodType<string>, value: z.ZodType<V>) {
  return z.unknown().transform((raw, ctx): Record<string, V> => {
    const out = emptyRecord<V>();
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      ctx.addIssue({ code: 'custom', message: 'expected an object' });
      return z.NEVER;
    }
    for (const [k, v] of Object.entries(raw)) {
      const name = key.safeParse(k);
      if (!name.success)
        for (const issue of name.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: [k] });
      const parsed = value.safeParse(v);
      if (!parsed.success)
        for (const issue of parsed.error.issues)
          ctx.addIssue({ code: 'custom', message: issue.message, path: [k, ...issue.path] });
      else Object.defineProperty(out, k, { value: parsed.data, enumerable: true, writable: true, configurable: true });
    }
    return out;
  });
}
