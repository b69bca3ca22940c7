// devops/secret-keys.json: every generated credential, its owners and its shape (docs/formats/secret-keys.md).
import { z } from 'zod';
import { ownRecord } from '../errors/own-record.ts';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { PharosError } from './pharos-error.ts';

// A Secret data key (Kubernetes' own rule) that is also usable as an environment variable name.
const keyName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a letter or "_" followed by letters, digits or "_"')
  .max(253)
  // @kubernetes/client-node serialises a Secret's data by assignment into `{}` (ObjectSerializer, map types), where a
  // "__proto__" key sets the prototype and vanishes: such a key could never reach a Secret.
  .refine((k) => k !== '__proto__', 'must not be "__proto__" (the Kubernetes JavaScript client cannot carry it)');
const ownerName = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a DNS label such as "api"')
  .max(40);

const keySchema = z.strictObject({
  owners: z
    .array(ownerName)
    .min(1)
    .refine((o) => new Set(o).size === o.length, 'lists an owner twice'),
  length: z.number().int().min(16).max(128).default(32),
  description: z.string().optional(),
});

export const inventorySchema = z.strictObject({
  schema: z.literal(1),
  // Prototype-free: a key named "constructor" or "__proto__" matches keyName and must be a key like any other.
  keys: ownRecord(keyName, keySchema),
});

export type SecretInventory = z.infer<typeof inventorySchema>;

/** The Secret that receives an owner's keys. */
export const ownerSecretName = (owner: string): string => `${owner}-credentials`;
/** The Secret that keeps every key's one value. */
export const RECORD_SECRET = 'pharos-generated';

export function parseInventory(text: string, file: string): SecretInventory {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new PharosError(
      'inventory',
      `Cannot read the secret inventory "${file}": not JSON (${(error as Error).message})`,
      { details: { file }, cause: error },
    );
  }
  const parsed = inventorySchema.safeParse(raw);
  if (!parsed.success) {
    throw new PharosError(
      'inventory',
      `Cannot read the secret inventory "${file}":\n${describeZodIssues(file, raw, parsed.error).join('\n')}`,
      { details: { file } },
    );
  }
  return parsed.data;
}

/** Owner -> its keys, sorted, so each Secret receives only its own. */
export function keysByOwner(inventory: SecretInventory): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [key, spec] of Object.entries(inventory.keys)) {
    for (const owner of spec.owners) out.set(owner, [...(out.get(owner) ?? []), key]);
  }
  for (const keys of out.values()) keys.sort();
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}
