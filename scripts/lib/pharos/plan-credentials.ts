// Deciding the credentials is pure: what the record and each owner's Secret must gain, or why not.
import { emptyRecord } from '../errors/own-record.ts';
import { PharosError } from './pharos-error.ts';
import { RECORD_SECRET, keysByOwner, ownerSecretName } from './secret-inventory.ts';
import type { SecretInventory } from './secret-inventory.ts';

/** Decoded Secret data; undefined when the Secret does not exist. */
export type SecretValues = Readonly<Record<string, string>> | undefined;

export interface SecretChange {
  readonly secret: string;
  readonly exists: boolean;
  /** Keys (and their values) the Secret gains; existing keys are never in here. */
  readonly add: Readonly<Record<string, string>>;
}

export interface OwnerChange extends SecretChange {
  readonly owner: string;
  /** Keys in the Secret that the inventory does not give this owner: left as they are, reported by name. */
  readonly foreign: readonly string[];
}

export interface CredentialsPlan {
  readonly record: SecretChange & { readonly recovered: readonly string[]; readonly generated: readonly string[] };
  readonly owners: readonly OwnerChange[];
}

export interface PlanInput {
  readonly inventory: SecretInventory;
  readonly record: SecretValues;
  readonly owners: ReadonlyMap<string, SecretValues>;
  readonly generate: (key: string, length: number) => string;
}

/** A key missing from the record takes the value the owners' Secrets already hold; owners that disagree are refused. */
function recover(
  key: string,
  owners: readonly string[],
  secrets: ReadonlyMap<string, SecretValues>,
): string | undefined {
  const found = new Map<string, string[]>();
  for (const owner of owners) {
    const value = secrets.get(owner)?.[key];
    if (value !== undefined) found.set(value, [...(found.get(value) ?? []), ownerSecretName(owner)]);
  }
  if (found.size > 1) {
    const holders = [...found.values()].map((names) => names.join(', ')).join(' / ');
    throw new PharosError(
      'disagree',
      `Cannot recover key "${key}" for "${RECORD_SECRET}": the Secrets hold different values (${holders}); delete the wrong key from its Secret and run again`,
      { details: { key, secrets: [...found.values()].flat() } },
    );
  }
  return [...found.keys()][0];
}

export function planCredentials(input: PlanInput): CredentialsPlan {
  const { inventory, record, owners } = input;
  // Keys come from the inventory and the Secrets: prototype-free, so `constructor` is not found before it is written.
  const values = Object.assign(emptyRecord<string>(), record);
  const add = emptyRecord<string>();
  const recovered: string[] = [];
  const generated: string[] = [];
  for (const [key, spec] of Object.entries(inventory.keys).sort(([a], [b]) => a.localeCompare(b))) {
    if (values[key] !== undefined) continue;
    const found = recover(key, spec.owners, owners);
    if (found !== undefined) recovered.push(key);
    else generated.push(key);
    values[key] = found ?? input.generate(key, spec.length);
    add[key] = values[key];
  }

  const tampered: string[] = [];
  const changes: OwnerChange[] = [];
  for (const [owner, keys] of keysByOwner(inventory)) {
    const secret = ownerSecretName(owner);
    const current = owners.get(owner);
    const gains = emptyRecord<string>();
    for (const key of keys) {
      const have = current?.[key];
      if (have === undefined) gains[key] = values[key] as string;
      else if (have !== values[key]) tampered.push(`${secret}/${key}`);
    }
    const foreign = Object.keys(current ?? {})
      .filter((key) => !keys.includes(key))
      .sort();
    changes.push({ owner, secret, exists: current !== undefined, add: gains, foreign });
  }
  if (tampered.length > 0) {
    throw new PharosError(
      'tampered',
      `Refusing to write credentials: ${tampered.map((t) => `"${t}"`).join(', ')} differ${tampered.length === 1 ? 's' : ''} from the record "${RECORD_SECRET}"; restore the recorded value or delete the key from the Secret, then run again`,
      { details: { keys: tampered } },
    );
  }
  return {
    record: { secret: RECORD_SECRET, exists: record !== undefined, add, recovered, generated },
    owners: changes,
  };
}

/** True when the plan writes nothing. */
export const planIsEmpty = (plan: CredentialsPlan): boolean =>
  Object.keys(plan.record.add).length === 0 &&
  plan.record.exists &&
  plan.owners.every(
    (o) =>
      // Stryker disable next-line ConditionalExpression: an owner Secret that does not exist gains every key the inventory gives it (at least one), so its add is never empty
      o.exists && Object.keys(o.add).length === 0,
  );
