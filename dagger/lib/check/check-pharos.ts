// The pharos namespace's administration (docs/pharos.md): contexts bound in the provision Job and the inventory,
// their migrations in the database-admin image, namespace-wide policies in sync waves before every hook.
import { posix } from 'node:path';
import type { Catalogue } from '../catalogue/catalogue.ts';
import { isAtOrUnder } from '../catalogue/repo-path.ts';
import { hookPhases, syncWave } from '../argocd/sync-order.ts';
import { parseContextRegistry } from '../pharos/context-registry.ts';
import type { ContextRegistry } from '../pharos/context-registry.ts';
import { keysByOwner, parseInventory } from '../pharos/secret-inventory.ts';
import type { SecretInventory } from '../pharos/secret-inventory.ts';
import { PharosError } from '../pharos/pharos-error.ts';
import type { CatalogueLines } from './catalogue-lines.ts';
import { finding } from './finding.ts';
import type { Finding } from './finding.ts';
import { yamlDocuments } from './yaml-documents.ts';
import type { YamlDocument } from './yaml-documents.ts';

export const CONTEXTS_PATH = 'devops/contexts.json';
export const INVENTORY_PATH = 'devops/secret-keys.json';
export const DATABASE_ADMIN = 'database-admin';
const PROVISION_SCRIPT = 'scripts/provision-contexts.ts';
const IMAGE = DATABASE_ADMIN;

export interface PharosInputs {
  readonly contexts: string | undefined;
  readonly inventory: string | undefined;
  /** Path → text of the YAML files under gitops/manifests. */
  readonly manifests: ReadonlyMap<string, string>;
  readonly catalogue: Catalogue;
  readonly lines: CatalogueLines;
}

type Obj = Record<string, any>;
const metaOf = (d: YamlDocument) =>
  (d.value['metadata'] ?? {}) as { name?: string; annotations?: Record<string, string> };
const ordered = (d: YamlDocument) => ({
  kind: String(d.value['kind']),
  metadata: { name: String(metaOf(d).name), annotations: metaOf(d).annotations },
});

/** Line of `"name"` in a JSON file (the first one), so findings point at the context's entry. */
function jsonLine(text: string, key: string): number {
  const at = text.indexOf(`"${key}"`);
  return at < 0 ? 1 : text.slice(0, at).split('\n').length;
}

function read<T>(text: string, file: string, parse: (t: string, f: string) => T, out: Finding[]): T | undefined {
  try {
    return parse(text, file);
  } catch (error) {
    if (!(error instanceof PharosError)) throw error;
    out.push(finding('unreadable-registry', IMAGE, file, 1, error.message.replaceAll('\n', '; ')));
    return undefined;
  }
}

/** The keys a provision Job's pod gets from `secret`: projected or secret volume items, and env secretKeyRefs. */
function boundKeys(job: YamlDocument, secret: string): Set<string> {
  const pod = (job.value as Obj)['spec']?.['template']?.['spec'] ?? {};
  const keys = new Set<string>();
  for (const volume of (pod['volumes'] ?? []) as Obj[]) {
    const sources = [
      ...((volume['projected']?.['sources'] ?? []) as Obj[]).map((s) => s['secret']),
      volume['secret'] && { ...volume['secret'], name: volume['secret']['secretName'] },
    ];
    for (const s of sources)
      if (s?.['name'] === secret) for (const item of (s['items'] ?? []) as Obj[]) keys.add(String(item['key']));
  }
  for (const container of (pod['containers'] ?? []) as Obj[]) {
    for (const env of (container['env'] ?? []) as Obj[]) {
      const ref = env['valueFrom']?.['secretKeyRef'];
      if (ref?.['name'] === secret) keys.add(String(ref['key']));
    }
  }
  return keys;
}

const runsProvision = (d: YamlDocument) =>
  d.value['kind'] === 'Job' &&
  JSON.stringify((d.value as Obj)['spec']?.['template']?.['spec']?.['containers'] ?? []).includes(PROVISION_SCRIPT);

function checkBindings(
  registry: ContextRegistry,
  inventory: SecretInventory | undefined,
  contextsText: string,
  docs: readonly YamlDocument[],
): Finding[] {
  const out: Finding[] = [];
  const jobs = docs.filter(runsProvision);
  if (jobs.length === 0) {
    out.push(
      finding(
        'context-binding',
        IMAGE,
        CONTEXTS_PATH,
        1,
        `no Job under gitops/manifests runs ${PROVISION_SCRIPT}: the registered contexts are never provisioned`,
      ),
    );
  }
  const owner = registry.bindingsSecret.replace(/-credentials$/, '');
  const owned = inventory === undefined ? undefined : new Set(keysByOwner(inventory).get(owner) ?? []);
  for (const [name, context] of Object.entries(registry.contexts)) {
    for (const job of jobs) {
      if (!boundKeys(job, registry.bindingsSecret).has(context.binding)) {
        out.push(
          finding(
            'context-binding',
            IMAGE,
            job.file,
            job.lineOf(['spec', 'template', 'spec', 'volumes']),
            `Job "${metaOf(job).name}" does not bind "${context.binding}" of Secret "${registry.bindingsSecret}" (context "${name}"): provisioning it would fail`,
          ),
        );
      }
    }
    if (owned !== undefined && !owned.has(context.binding)) {
      out.push(
        finding(
          'context-binding',
          IMAGE,
          CONTEXTS_PATH,
          jsonLine(contextsText, context.binding),
          `context "${name}": key "${context.binding}" is not in ${INVENTORY_PATH} for owner "${owner}", so "${registry.bindingsSecret}" never receives it`,
        ),
      );
    }
  }
  return out;
}

function checkMigrations(
  registry: ContextRegistry,
  contextsText: string,
  catalogue: Catalogue,
  lines: CatalogueLines,
): Finding[] {
  const image = catalogue.images.find((i) => i.name === DATABASE_ADMIN);
  if (image === undefined)
    return [
      finding(
        'context-migrations',
        IMAGE,
        CONTEXTS_PATH,
        1,
        `the catalogue has no "${DATABASE_ADMIN}" image to carry the contexts' migrations`,
      ),
    ];
  const out: Finding[] = [];
  for (const [name, context] of Object.entries(registry.contexts)) {
    if (!image.inputs.some((input) => isAtOrUnder(context.migrations, input))) {
      out.push(
        finding(
          'context-migrations',
          IMAGE,
          'gitops/manifests/images.yaml',
          lines.at(DATABASE_ADMIN, 'inputs'),
          `context "${name}": migrations "${context.migrations}" are not under the inputs of "${DATABASE_ADMIN}" (${image.inputs.join(', ')}): a changed migration would not rebuild the image (${CONTEXTS_PATH}:${jsonLine(contextsText, context.migrations)})`,
        ),
      );
    }
  }
  return out;
}

/** Per manifests tree (gitops/manifests/<service>), every namespace-wide NetworkPolicy must sync before every hook. */
function checkPolicyWaves(docs: readonly YamlDocument[]): Finding[] {
  const out: Finding[] = [];
  const tree = (file: string) => file.split('/').slice(0, 3).join('/');
  for (const group of new Set(docs.map((d) => tree(d.file)))) {
    const inTree = docs.filter((d) => tree(d.file) === group);
    const hooks = inTree.filter((d) => Array.isArray(hookPhases(ordered(d))));
    if (hooks.length === 0) continue;
    const policies = inTree.filter(
      (d) =>
        d.value['kind'] === 'NetworkPolicy' &&
        hookPhases(ordered(d)) === undefined &&
        Object.keys((d.value as Obj)['spec']?.['podSelector'] ?? {}).length === 0,
    );
    for (const policy of policies) {
      const wave = syncWave(ordered(policy));
      for (const hook of hooks) {
        const phases = hookPhases(ordered(hook)) as string[];
        const before = phases.includes('PreSync') || (phases.includes('Sync') && syncWave(ordered(hook)) <= wave);
        if (!before) continue;
        const when = phases.includes('PreSync')
          ? 'a PreSync hook, which runs before every wave'
          : `in wave ${syncWave(ordered(hook))} (${posix.basename(hook.file)}:${hook.line})`;
        out.push(
          finding(
            'policy-after-hooks',
            IMAGE,
            policy.file,
            policy.lineOf(['metadata', 'annotations']) === policy.line
              ? policy.lineOf(['metadata', 'name'])
              : policy.lineOf(['metadata', 'annotations']),
            `namespace-wide NetworkPolicy "${metaOf(policy).name}" syncs in wave ${wave}, not before hook ${String(hook.value['kind'])} "${metaOf(hook).name}" ${when}: the hook would run unfenced`,
          ),
        );
      }
    }
  }
  return out;
}

/** Nothing to check where the repository registers no contexts. */
export function checkPharos(inputs: PharosInputs): Finding[] {
  if (inputs.contexts === undefined) return [];
  const out: Finding[] = [];
  const registry = read(inputs.contexts, CONTEXTS_PATH, parseContextRegistry, out);
  const inventory =
    inputs.inventory === undefined ? undefined : read(inputs.inventory, INVENTORY_PATH, parseInventory, out);
  if (inputs.inventory === undefined)
    out.push(
      finding(
        'context-binding',
        IMAGE,
        CONTEXTS_PATH,
        1,
        `${INVENTORY_PATH} is missing: no credentials are generated for the contexts`,
      ),
    );
  const docs = [...inputs.manifests].flatMap(([file, text]) => yamlDocuments(text, file));
  if (registry !== undefined) {
    out.push(...checkBindings(registry, inventory, inputs.contexts, docs));
    out.push(...checkMigrations(registry, inputs.contexts, inputs.catalogue, inputs.lines));
  }
  out.push(...checkPolicyWaves(docs));
  return out;
}
