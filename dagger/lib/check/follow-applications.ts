import { posix } from 'node:path';
import { normaliseRepoPath, repoPathProblem } from '../catalogue/repo-path.ts';
import type { SourceEntry, TreeSource } from '../fingerprint/tree-source.ts';
import { readTexts } from './read-texts.ts';
import { scanManifest } from './scan-manifest.ts';
import type { ApplicationRef, ManifestScan } from './scan-manifest.ts';
import { sortedFiles } from './sorted-files.ts';

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const isManifest = (path: string) => /\.ya?ml$/.test(path) || posix.basename(path) === 'Kustomization';

/** `resources: [../base, deploy.yaml]` relative to the kustomization's folder; remote ones are not followed. */
function localPath(folder: string, entry: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\/|^git@|^github\.com\//i.test(entry)) return undefined;
  const joined = posix.normalize(posix.join(folder, entry));
  const path = normaliseRepoPath(joined);
  return repoPathProblem(path) === undefined ? path : undefined;
}

interface Folder {
  readonly path: string;
  readonly recurse: boolean;
}

/**
 * The manifests each Argo CD Application deploys, wherever its `source.path` points: a folder with
 * a kustomization is followed through its `resources` (files and folders, recursively), any other
 * folder is read as Argo CD reads a directory (its YAML files; the whole tree with `directory.recurse`).
 * `done` holds the paths already scanned as workloads; the result adds one scan per newly read file.
 * A kustomization whose output reading cannot predict (patches, components, remote resources) is also
 * rendered with `render` (the real `kubectl kustomize`) when given: `rendered` holds those outputs, `unrendered`
 * the folders `render` could not render here (it answered undefined: no kubectl).
 */
export async function followApplications(
  source: TreeSource,
  applications: readonly ApplicationRef[],
  done: Set<string>,
  render?: (folder: string) => Promise<string | undefined>,
): Promise<{ scans: ManifestScan[]; rendered: ManifestScan[]; unrendered: string[] }> {
  const out: ManifestScan[] = [];
  const rendered: ManifestScan[] = [];
  const renderedFolders = new Set<string>();
  const unrendered: string[] = [];
  const folders: Folder[] = [];
  const seenFolders = new Set<string>();
  const queue = (path: string, recurse: boolean) => {
    const key = `${path}\0${recurse}`;
    if (!seenFolders.has(key)) {
      seenFolders.add(key);
      folders.push({ path, recurse });
    }
  };
  for (const app of applications) {
    for (const sourcePath of app.paths) {
      const path = normaliseRepoPath(sourcePath.path);
      if (repoPathProblem(path) === undefined) queue(path, sourcePath.recurse);
    }
  }
  const scanFiles = async (paths: readonly string[]): Promise<ManifestScan[]> => {
    const fresh = paths.filter((p) => !done.has(p));
    for (const p of fresh) done.add(p);
    const texts = await readTexts(source, fresh);
    return [...texts].map(([path, text]) => scanManifest(text, path, true));
  };
  while (folders.length > 0) {
    const folder = folders.shift() as Folder;
    const listed = sortedFiles(await source.list([folder.path], [])); // a nested repository there is no manifest of ours
    if (listed.length === 1 && listed[0]?.path === folder.path) {
      out.push(...(await scanFiles(isManifest(folder.path) ? [folder.path] : []))); // a resource naming one file
      continue;
    }
    const prefix = folder.path === '.' ? '' : `${folder.path}/`;
    const direct = listed.filter((f: SourceEntry) => !f.path.slice(prefix.length).includes('/')).map((f) => f.path);
    const kustomization = KUSTOMIZATION_FILES.map((name) => `${prefix}${name}`).find((p) => direct.includes(p));
    if (kustomization === undefined) {
      const chart = direct.includes(`${prefix}Chart.yaml`);
      if (!chart)
        out.push(...(await scanFiles((folder.recurse ? listed.map((f) => f.path) : direct).filter(isManifest))));
      continue;
    }
    // read even when scanned before: its resources are still to follow
    const text = (await readTexts(source, [kustomization])).get(kustomization);
    if (text === undefined) continue;
    const scan = scanManifest(text, kustomization, true);
    if (!done.has(kustomization)) out.push(scan);
    done.add(kustomization);
    if (scan.needsRender && render !== undefined && !renderedFolders.has(folder.path)) {
      renderedFolders.add(folder.path);
      const output = await renderedScan(render, folder.path, kustomization);
      if (output === undefined) unrendered.push(folder.path);
      else rendered.push(output);
    }
    for (const entry of scan.resources) {
      const path = localPath(folder.path, entry);
      if (path !== undefined) queue(path, false);
    }
  }
  return { scans: out, rendered, unrendered };
}

/** The images of `kubectl kustomize <folder>`, pointed at the kustomization (the output has no lines of the repository). */
async function renderedScan(
  render: (folder: string) => Promise<string | undefined>,
  folder: string,
  kustomization: string,
): Promise<ManifestScan | undefined> {
  try {
    const text = await render(folder);
    if (text === undefined) return undefined;
    const scan = scanManifest(text, kustomization, true);
    return {
      ...scan,
      applications: [],
      resources: [],
      images: scan.images.map((ref) => ({ ...ref, line: 1, where: 'kubectl kustomize output' })),
    };
  } catch (error) {
    const message = `kubectl kustomize ${folder} failed: ${((error as Error).message.split('\n')[0] ?? '').trim()}`;
    return {
      images: [],
      applications: [],
      resources: [],
      needsRender: false,
      problems: [{ file: kustomization, line: 1, message }],
    };
  }
}
