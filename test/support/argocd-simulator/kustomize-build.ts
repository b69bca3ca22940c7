// Renders a source directory as Argo CD does: the real `kustomize build` (kubectl kustomize) when the path holds a
// kustomization, with the Application's kustomize overrides written into it first; else the plain YAML files.
import { cp, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseAllDocuments, parseDocument } from 'yaml';
import { exec } from '../../../scripts/lib/ports/exec.ts';
import { mergeImageOverrides, parseImageOverride } from './kustomize-images.ts';
import type { ImageOverride } from './kustomize-images.ts';
import { isManifest } from './manifest.ts';
import type { Manifest } from './manifest.ts';

/** Argo CD `spec.source.kustomize` overrides the simulator implements. */
export interface KustomizeOverrides {
  readonly images?: readonly string[];
  readonly patches?: readonly Record<string, unknown>[];
}

export class KustomizeError extends Error {}

/** kubectl cannot run: the simulator cannot work at all, so this fails the tick instead of one Application. */
export class KubectlMissingError extends Error {}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

function parseYamlDocs(text: string, origin: string): Manifest[] {
  const out: Manifest[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new KustomizeError(`${origin}: invalid YAML: ${doc.errors[0]?.message ?? ''}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (!isManifest(value))
      throw new KustomizeError(`${origin}: a document is not a Kubernetes object (apiVersion, kind, metadata.name)`);
    out.push(value);
  }
  return out;
}

async function kustomizationIn(dir: string): Promise<string | undefined> {
  const names = await readdir(dir).catch(() => undefined);
  return KUSTOMIZATION_FILES.find((name) => names?.includes(name));
}

// Argo CD runs `kustomize edit set image` and appends `patches` in its own copy of the source before building.
async function writeOverrides(file: string, overrides: KustomizeOverrides): Promise<void> {
  const doc = parseDocument(await readFile(file, 'utf8'));
  const images = (overrides.images ?? []).map(parseImageOverride);
  if (images.length > 0) {
    const base = ((doc.toJS() as { images?: ImageOverride[] } | null)?.images ?? []) as ImageOverride[];
    doc.set('images', mergeImageOverrides(base, images));
  }
  if ((overrides.patches?.length ?? 0) > 0) {
    const base = ((doc.toJS() as { patches?: unknown[] } | null)?.patches ?? []) as unknown[];
    doc.set('patches', [...base, ...(overrides.patches ?? [])]);
  }
  await writeFile(file, doc.toString());
}

/**
 * The manifests of `path` inside the checked-out `root`. `scratch` is a fresh folder the overrides may be written
 * in (a copy of `root`, so `../` resources still resolve).
 */
export async function renderSource(
  root: string,
  path: string,
  overrides: KustomizeOverrides,
  scratch: () => Promise<string>,
): Promise<Manifest[]> {
  const dir = join(root, path);
  if (relative(root, dir).startsWith('..'))
    throw new KustomizeError(`app path ${JSON.stringify(path)} leaves the repository`);
  const kustomization = await kustomizationIn(dir);
  const hasOverrides = (overrides.images?.length ?? 0) > 0 || (overrides.patches?.length ?? 0) > 0;
  if (kustomization === undefined) {
    const names = await readdir(dir).catch(() => undefined);
    if (!names) throw new KustomizeError(`app path ${JSON.stringify(path)} does not exist`);
    if (hasOverrides)
      throw new KustomizeError(`app path ${JSON.stringify(path)}: kustomize overrides need a kustomization.yaml`);
    const out: Manifest[] = [];
    for (const name of names.filter((n) => /\.(ya?ml|json)$/.test(n)).sort())
      out.push(...parseYamlDocs(await readFile(join(dir, name), 'utf8'), join(path, name)));
    return out;
  }
  let buildDir = dir;
  if (hasOverrides) {
    const copy = await mkdtemp(join(await scratch(), 'src-'));
    await cp(root, copy, { recursive: true });
    buildDir = join(copy, path);
    await writeOverrides(join(buildDir, kustomization), overrides);
  }
  const result = await exec('kubectl', ['kustomize', buildDir]).catch((error: Error) => {
    throw new KubectlMissingError(
      `kubectl kustomize is required by the Argo CD simulator and cannot run: ${error.message}`,
    );
  });
  if (result.code !== 0) throw new KustomizeError(`kustomize build ${path} failed: ${result.stderr.trim()}`);
  return parseYamlDocs(result.stdout.toString('utf8'), `kustomize build ${path}`);
}
