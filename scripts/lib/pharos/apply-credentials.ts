// The credentials hook (sync wave -3): read the record and the owners' Secrets, plan, then write record first.
import type { Kube } from '../ports/kube.ts';
import { KubeError, isConflict } from '../ports/kube-error.ts';
import { decodeSecret, encodeData } from './secret-data.ts';
import type { ReadSecret } from './secret-data.ts';
import { planCredentials, planIsEmpty } from './plan-credentials.ts';
import type { CredentialsPlan, SecretChange, SecretValues } from './plan-credentials.ts';
import { RECORD_SECRET, keysByOwner, ownerSecretName } from './secret-inventory.ts';
import type { SecretInventory } from './secret-inventory.ts';
import { generateValue } from './generate-value.ts';

export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'pharos-credentials' };

export interface CredentialsOptions {
  readonly kube: Kube;
  readonly namespace: string;
  readonly inventory: SecretInventory;
  readonly dryRun?: boolean;
  /** One line per decision, names only. */
  readonly log?: (line: string) => void;
  readonly generate?: (key: string, length: number) => string;
}

export interface CredentialsReport {
  readonly namespace: string;
  readonly changed: boolean;
  readonly plan: CredentialsPlan;
}

async function read(kube: Kube, namespace: string, name: string): Promise<ReadSecret | undefined> {
  const object = await kube.get('Secret', namespace, name);
  return object === undefined ? undefined : decodeSecret(object, `${namespace}/${name}`);
}

/** Create, or merge-patch only the new keys under the resourceVersion that was read (a concurrent writer is a conflict). */
async function write(
  kube: Kube,
  namespace: string,
  change: SecretChange,
  current: ReadSecret | undefined,
): Promise<void> {
  if (current === undefined) {
    await kube.create('Secret', namespace, {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: { name: change.secret, namespace, labels: MANAGED_BY },
      data: encodeData(change.add),
    });
    return;
  }
  if (Object.keys(change.add).length === 0) return;
  await kube.mergePatch('Secret', namespace, change.secret, {
    metadata: { resourceVersion: current.resourceVersion },
    data: encodeData(change.add),
  });
}

async function attempt(options: CredentialsOptions): Promise<CredentialsReport> {
  const { kube, namespace, inventory } = options;
  const owners = [...keysByOwner(inventory).keys()];
  const record = await read(kube, namespace, RECORD_SECRET);
  const current = new Map<string, ReadSecret | undefined>();
  for (const owner of owners) current.set(owner, await read(kube, namespace, ownerSecretName(owner)));
  const plan = planCredentials({
    inventory,
    record: record?.values,
    owners: new Map<string, SecretValues>([...current].map(([owner, secret]) => [owner, secret?.values])),
    generate: options.generate ?? ((_key, length) => generateValue(length)),
  });
  const changed = !planIsEmpty(plan);
  if (changed && options.dryRun !== true) {
    // The record first: if the run stops half-way, the next one hands the owners the recorded values.
    await write(kube, namespace, plan.record, record);
    for (const change of plan.owners) await write(kube, namespace, change, current.get(change.owner));
  }
  return { namespace, changed, plan };
}

/** Retries a run that lost a race with another writer (a second hook, an operator): it re-reads and re-decides. */
export async function applyCredentials(options: CredentialsOptions): Promise<CredentialsReport> {
  for (let tries = 1; ; tries++) {
    try {
      const report = await attempt(options);
      for (const line of describeCredentials(report, options.dryRun === true)) options.log?.(line);
      return report;
    } catch (error) {
      const raced = isConflict(error) || (error instanceof KubeError && error.code === 'already-exists');
      if (!raced || tries >= 3) throw error;
      options.log?.(`credentials: another writer changed the Secrets, reading them again (attempt ${tries + 1})`);
    }
  }
}

const names = (keys: readonly string[]) => (keys.length === 0 ? '-' : keys.join(','));

/** Names only: never a value. */
export function describeCredentials(report: CredentialsReport, dryRun: boolean): string[] {
  const verb = (exists: boolean, add: object) =>
    !exists
      ? dryRun
        ? 'would create'
        : 'created'
      : Object.keys(add).length > 0
        ? dryRun
          ? 'would add'
          : 'added'
        : 'unchanged';
  const { record } = report.plan;
  const lines = [
    `credentials: secret=${record.secret} ${verb(record.exists, record.add)} generated=${names(record.generated)} recovered=${names(record.recovered)}`,
  ];
  for (const owner of report.plan.owners) {
    lines.push(
      `credentials: secret=${owner.secret} ${verb(owner.exists, owner.add)} keys=${names(Object.keys(owner.add))}`,
    );
    if (owner.foreign.length > 0)
      lines.push(
        `credentials: secret=${owner.secret} warning: keys not in the inventory for "${owner.owner}", left as they are: ${owner.foreign.join(',')}`,
      );
  }
  lines.push(
    `credentials: namespace=${report.namespace} ${report.changed ? (dryRun ? 'would change' : 'changed') : 'nothing to do'}`,
  );
  return lines;
}

/** What `--json` prints: names and decisions, never values. */
export function credentialsJson(report: CredentialsReport): string {
  const { record, owners } = report.plan;
  return `${JSON.stringify({
    schema: 1,
    namespace: report.namespace,
    changed: report.changed,
    record: {
      secret: record.secret,
      created: !record.exists,
      added: Object.keys(record.add),
      generated: record.generated,
      recovered: record.recovered,
    },
    owners: owners.map((o) => ({
      owner: o.owner,
      secret: o.secret,
      created: !o.exists,
      added: Object.keys(o.add),
      foreign: o.foreign,
    })),
  })}\n`;
}
