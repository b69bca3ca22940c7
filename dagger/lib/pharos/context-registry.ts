// devops/contexts.json: every context with its own database, the key that binds its password, its migrations.
import { z } from 'zod';
import { ownRecord } from '../errors/own-record.ts';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { PharosError } from './pharos-error.ts';

// PostgreSQL folds unquoted names to lower case; lower-case names mean the same thing quoted or not.
const pgName = z
  .string()
  .regex(/^[a-z_][a-z0-9_]*$/, 'must be a lower-case PostgreSQL name such as "catalog"')
  .max(63);
const contextName = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/, 'must be lower-case letters, digits and "-"')
  .max(40);
const relativePath = z
  .string()
  .min(1)
  .refine(
    (p) => !p.startsWith('/') && !p.split('/').includes('..'),
    'must be a path inside the repository (no leading "/", no "..")',
  );

const contextSchema = z.strictObject({
  database: pgName,
  role: pgName,
  /** The key of metallo-credentials (and of the secret inventory) holding the role's password. */
  binding: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a Secret key such as "CATALOG_DATABASE_PASSWORD"'),
  migrations: relativePath,
});

export const registrySchema = z.strictObject({
  schema: z.literal(1),
  /** The Secret the provision Job reads the bindings from. */
  bindingsSecret: z.string().default('metallo-credentials'),
  contexts: ownRecord(contextName, contextSchema),
});

export type ContextRegistry = z.infer<typeof registrySchema>;
export type ContextSpec = z.infer<typeof contextSchema> & { readonly name: string };

export function parseContextRegistry(text: string, file: string): ContextRegistry {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new PharosError(
      'registry',
      `Cannot read the context registry "${file}": not JSON (${(error as Error).message})`,
      { details: { file }, cause: error },
    );
  }
  const parsed = registrySchema.safeParse(raw);
  if (!parsed.success)
    throw new PharosError(
      'registry',
      `Cannot read the context registry "${file}":\n${describeZodIssues(file, raw, parsed.error).join('\n')}`,
      { details: { file } },
    );
  const seen = new Map<string, string>();
  for (const [name, spec] of Object.entries(parsed.data.contexts)) {
    for (const [what, value] of [
      ['database', spec.database],
      ['role', spec.role],
    ] as const) {
      const other = seen.get(`${what}:${value}`);
      if (other !== undefined)
        throw new PharosError(
          'registry',
          `Cannot read the context registry "${file}": contexts.${name}.${what}: "${value}" is already context "${other}"'s`,
          { details: { file } },
        );
      seen.set(`${what}:${value}`, name);
    }
  }
  return parsed.data;
}

/** The contexts in name order, or only `names` (an unknown name is a usage error). */
export function selectContexts(registry: ContextRegistry, names: readonly string[], file: string): ContextSpec[] {
  const all = Object.entries(registry.contexts)
    .map(([name, spec]) => ({ name, ...spec }))
    .sort((a, b) => a.name.localeCompare(b.name));
  if (names.length === 0) return all;
  const unknown = names.filter((n) => !(n in registry.contexts));
  if (unknown.length > 0)
    throw new PharosError(
      'registry',
      `Cannot provision ${unknown.map((n) => `"${n}"`).join(', ')}: not in the context registry "${file}" (known: ${all.map((c) => c.name).join(', ')})`,
    );
  return all.filter((c) => names.includes(c.name));
}
