// Renders a source directory as Argo CD does: `kustomize build` when it holds a kustomization, else plain YAML files.
import { posix } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { TreeReader } from './git-source.ts';
import { applyImageOverrides, mergeImageOverrides, parseImageOverride } from './kustomize-images.ts';
import type { ImageOverride } from './kustomize-images.ts';
import { KustomizeError, applyPatch } from './kustomize-patches.ts';
import type { PatchTarget } from './kustomize-patches.ts';
import { isManifest } from './manifest.ts';
import type { Manifest } from './manifest.ts';

/** Argo CD `spec.source.kustomize` overrides the simulator implements. */
export interface KustomizeOverrides {
  readonly images?: readonly string[];
  readonly patches?: readonly { readonly path?: string; readonly patch?: string; readonly target?: PatchTarget }[];
}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
// Fields beyond these would be silently ignored; a simulator must refuse them instead.
const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'images', 'patches', 'namespace']);

function parseYamlDocs(text: string, origin: string): Manifest[] {
  const docs = parseAllDocuments(text);
  const out: Manifest[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new KustomizeError(`${origin}: invalid YAML: ${doc.errors[0]?.message ?? ''}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (!isManifest(value)) throw new KustomizeError(`${origin}: a document is not a Kubernetes object (apiVersion, kind, metadata.name)`);
    out.push(value);
  }
  return out;
}

async function findKustomization(tree: TreeReader, dir: string): Promise<{ path: string; text: string } | undefined> {
  for (const name of KUSTOMIZATION_FILES) {
    const path = posix.join(dir, name);
    const text = await tree.readFile(path);
    if (text !== undefined) return { path, text };
  }
  return undefined;
}

async function build(tree: TreeReader, dir: string, overrides: KustomizeOverrides, depth: number): Promise<Manifest[]> {
  if (depth > 20) throw new KustomizeError(`${dir}: kustomization nesting too deep`);
  const found = await findKustomization(tree, dir);
  if (!found) throw new KustomizeError(`${dir}: no kustomization.yaml`);
  const k = parseAllDocuments(found.text)[0]?.toJS() as Record<string, unknown> | undefined;
  if (typeof k !== 'object' || k === null) throw new KustomizeError(`${found.path}: not a kustomization`);
  const unsupported = Object.keys(k).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length > 0) throw new KustomizeError(`${found.path}: fields not supported by the Argo CD simulator: ${unsupported.join(', ')}`);
  let manifests: Manifest[] = [];
  for (const entry of (k['resources'] as unknown[] | undefined) ?? []) {
    if (typeof entry !== 'string' || /^[a-z]+:\/\//.test(entry)) throw new KustomizeError(`${found.path}: resource ${JSON.stringify(entry)} is not a local path`);
    const path = posix.join(dir, entry);
    const text = await tree.readFile(path);
    if (text !== undefined) manifests.push(...parseYamlDocs(text, path));
    else if (await tree.listDir(path)) manifests.push(...(await build(tree, path, {}, depth + 1)));
    else throw new KustomizeError(`${found.path}: resource ${JSON.stringify(entry)} does not exist at ${tree.commit.slice(0, 12)}`);
  }
  const patches = [...((k['patches'] as KustomizeOverrides['patches']) ?? []), ...(overrides.patches ?? [])];
  for (const [i, p] of patches.entries()) {
    const origin = `${found.path}: patches[${i}]`;
    const text = p.patch ?? (p.path !== undefined ? await tree.readFile(posix.join(dir, p.path)) : undefined);
    if (text === undefined) throw new KustomizeError(`${origin}: needs "patch" or an existing "path"`);
    manifests = applyPatch(manifests, text, p.target, origin);
  }
  if (typeof k['namespace'] === 'string') {
    for (const m of manifests) m.metadata.namespace = k['namespace'];
  }
  const images = mergeImageOverrides((k['images'] as ImageOverride[] | undefined) ?? [], (overrides.images ?? []).map(parseImageOverride));
  for (const m of manifests) applyImageOverrides(m, images);
  return manifests;
}

/** The manifests of `path` at the tree's commit, with the Application's kustomize overrides applied. */
export async function renderSource(tree: TreeReader, path: string, overrides: KustomizeOverrides = {}): Promise<Manifest[]> {
  const dir = posix.normalize(path === '' ? '.' : path);
  if (await findKustomization(tree, dir)) return build(tree, dir, overrides, 0);
  const entries = await tree.listDir(dir);
  if (!entries) throw new KustomizeError(`${dir}: app path does not exist at ${tree.commit.slice(0, 12)}`);
  if ((overrides.images?.length ?? 0) > 0 || (overrides.patches?.length ?? 0) > 0) {
    throw new KustomizeError(`${dir}: kustomize overrides need a kustomization.yaml in the app path`);
  }
  const files = entries.filter((e) => e.type === 'blob' && /\.(ya?ml|json)$/.test(e.name)).map((e) => e.name).sort();
  const out: Manifest[] = [];
  for (const name of files) out.push(...parseYamlDocs((await tree.readFile(posix.join(dir, name))) ?? '', posix.join(dir, name)));
  return out;
}
