import { join, posix } from 'node:path';
import { exec } from '../ports/exec.ts';
import { imageRepository, normaliseRepository } from './image-ref.ts';
import type { Catalogue, ImageEntry } from '../catalogue/catalogue.ts';
import { CATALOGUE_PATH } from '../catalogue/catalogue.ts';
import { isAtOrUnder } from '../catalogue/repo-path.ts';
import { analyseDockerfile } from '../dockerfile/analyse-dockerfile.ts';
import { excludeMatcher } from '../fingerprint/exclude-matcher.ts';
import { imageFileSet } from '../fingerprint/fingerprint-images.ts';
import type { SourceEntry, TreeSource } from '../fingerprint/tree-source.ts';
import { gitPort } from '../ports/git.ts';
import type { Git } from '../ports/git.ts';
import { attributesOutsideTree } from './outside-attributes.ts';
import { catalogueLines } from './catalogue-lines.ts';
import { checkCataloguePaths } from './check-catalogue-paths.ts';
import { checkDockerfile } from './check-dockerfile.ts';
import { checkAttr, checkFilteredInputs } from './check-filtered-inputs.ts';
import { forgetParsedManifests } from './parse-manifest.ts';
import { checkManifests } from './check-manifests.ts';
import { CONTEXTS_PATH, INVENTORY_PATH, checkPharos } from './check-pharos.ts';
import { followApplications } from './follow-applications.ts';
import { compareFindings } from './finding.ts';
import type { Finding } from './finding.ts';
import { parseGitattributes } from './gitattributes.ts';
import { readTexts } from './read-texts.ts';
import { scanManifest } from './scan-manifest.ts';
import { filesUnder, hasFilesUnder, sortedFiles } from './sorted-files.ts';

export interface CheckOptions {
  /** One journal-friendly line per step. */
  readonly log?: (line: string) => void;
  /** Renders a kustomization folder (repo-relative) to YAML; default: `kubectl kustomize` on a working tree, none on a commit. */
  readonly render?: (folder: string) => Promise<string | undefined>;
}

/**
 * `kubectl kustomize` over the working tree (a commit's tree is not on disk, so it is read only); undefined
 * where kubectl is not installed, which the step log says: a machine without it is not a defect of the repository.
 */
function kustomizeRenderer(source: TreeSource): ((folder: string) => Promise<string | undefined>) | undefined {
  if (source.kind !== 'worktree') return undefined;
  return async (folder) => {
    const result = await exec('kubectl', ['kustomize', join(source.root, folder)], { timeoutMs: 60_000 }).catch(
      (error: Error) => {
        if (/ENOENT/.test(error.message)) return undefined;
        throw error;
      },
    );
    if (result === undefined) return undefined;
    if (result.code !== 0) throw new Error(result.stderr.trim() || `exit status ${result.code}`);
    return result.stdout.toString('utf8');
  };
}

const GITOPS = 'gitops';
const MANIFESTS = 'gitops/manifests';

/** Every `.gitattributes` that can apply to `path`: the root one and one per ancestor folder. */
function attributeFiles(path: string): string[] {
  const out = ['.gitattributes'];
  const segments = path === '.' ? [] : path.split('/');
  for (let i = 1; i < segments.length + 1; i++) out.push(`${segments.slice(0, i).join('/')}/.gitattributes`);
  return out;
}

/** `<chart>/templates/…` beside a `Chart.yaml` is Go-templated text, not a manifest. */
function isHelmTemplate(path: string, files: readonly SourceEntry[]): boolean {
  const at = path.lastIndexOf('/templates/');
  return at >= 0 && hasFilesUnder(files, `${path.slice(0, at)}/Chart.yaml`);
}

/** Runs every rule over one source (a working tree or a commit's tree) and returns the findings, sorted. */
export async function checkPlatform(
  source: TreeSource,
  catalogue: Catalogue,
  options: CheckOptions = {},
): Promise<Finding[]> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const step = (name: string, detail: string) => log(`check: step=${name} ${detail} ms=${Date.now() - started}`);
  const images = catalogue.images;
  const prefixes = new Set<string>([GITOPS]);
  for (const image of images) {
    for (const path of [image.context, image.dockerfile, ...image.inputs]) {
      prefixes.add(path);
      for (const attributes of attributeFiles(path)) prefixes.add(attributes);
    }
  }
  // A nested repository is refused only where fingerprint refuses it, under an image's inputs; in a context or gitops/
  // it holds no file of this repository.
  const fileSets = images.flatMap((image) => [image.dockerfile, ...image.inputs]);
  const files = sortedFiles(await source.list([...prefixes], fileSets));
  step('list', `source=${source.id} files=${files.length}`);

  const lines = catalogueLines((await source.readFile(CATALOGUE_PATH))?.toString('utf8') ?? '');
  const findings: Finding[] = checkCataloguePaths(catalogue, files, lines);
  const broken = new Set(
    findings.filter((f) => f.rule === 'missing-dockerfile' || f.rule === 'missing-context').map((f) => f.image),
  );

  const excluded = excludedFor();
  const buildable = images.filter((image) => !broken.has(image.name));
  const dockerfiles = await readTexts(source, [...new Set(buildable.map((image) => image.dockerfile))]);
  for (const image of buildable) {
    const text = dockerfiles.get(image.dockerfile) ?? '';
    const analysis = analyseDockerfile(text, {
      args: new Map(image.args),
      target: image.target,
      platform: image.platform,
    });
    findings.push(...checkDockerfile(image, analysis, files, excluded(image)));
  }
  step('dockerfiles', `images=${buildable.length} dockerfiles=${dockerfiles.size}`);

  const yamlFiles = filesUnder(files, GITOPS)
    .map((f) => f.path)
    .filter((p) => /\.ya?ml$/.test(p) || posix.basename(p) === 'Kustomization')
    .filter((p) => p !== CATALOGUE_PATH && !isHelmTemplate(p, files));
  const manifests = await readTexts(source, yamlFiles);
  const initial = [...manifests].map(([path, text]) => ({
    path,
    workloads: isAtOrUnder(path, MANIFESTS),
    scan: scanManifest(text, path, isAtOrUnder(path, MANIFESTS)),
  }));
  const done = new Set(initial.filter((s) => s.workloads).map((s) => s.path));
  const {
    scans: followed,
    rendered,
    unrendered,
  } = await followApplications(
    source,
    initial.flatMap((s) => s.scan.applications),
    done,
    options.render ?? kustomizeRenderer(source),
  );
  // a file under gitops/ an Application deploys was read again as workloads: that scan replaces the first
  const read = [...initial.filter((s) => s.workloads || !done.has(s.path)).map((s) => s.scan), ...followed];
  // rendering only adds what reading could not see: an image the files name is reported at its own line
  const seen = new Set(read.flatMap((s) => s.images.map((ref) => normaliseRepository(imageRepository(ref.ref)))));
  const scans = [
    ...read,
    ...rendered.map((s) => ({
      ...s,
      images: s.images.filter((ref) => !seen.has(normaliseRepository(imageRepository(ref.ref)))),
    })),
  ];
  if (unrendered.length > 0)
    step(
      'render',
      `skipped=${unrendered.join(',')} reason="kubectl is not installed: these kustomizations are read, not rendered"`,
    );
  findings.push(...checkManifests(catalogue, scans, lines));
  step(
    'manifests',
    `files=${manifests.size + followed.length} images=${scans.reduce((n, s) => n + s.images.length, 0)} applications=${scans.reduce((n, s) => n + s.applications.length, 0)}`,
  );

  const texts = async (path: string) => (await source.readFile(path))?.toString('utf8');
  const pharosManifests = new Map([...manifests].filter(([path]) => isAtOrUnder(path, MANIFESTS)));
  findings.push(
    ...checkPharos({
      contexts: await texts(CONTEXTS_PATH),
      inventory: await texts(INVENTORY_PATH),
      manifests: pharosManifests,
      catalogue,
      lines,
    }),
  );
  step(
    'pharos',
    `registry=${(await texts(CONTEXTS_PATH)) === undefined ? 'none' : CONTEXTS_PATH} manifests=${pharosManifests.size}`,
  );

  forgetParsedManifests();
  findings.push(...(await filteredInputs(source, images, files, excluded)));
  step('attributes', `findings=${findings.length}`);
  return findings.sort(compareFindings);
}

/** One matcher per distinct exclude list: images mostly share the catalogue's. */
function excludedFor(): (image: ImageEntry) => (path: string) => boolean {
  const matchers = new Map<string, (path: string) => boolean>();
  return (image) => {
    const key = JSON.stringify(image.exclude);
    let matcher = matchers.get(key);
    if (matcher === undefined) matchers.set(key, (matcher = excludeMatcher(image.exclude)));
    return matcher;
  };
}

async function filteredInputs(
  source: TreeSource,
  images: readonly ImageEntry[],
  files: readonly SourceEntry[],
  excluded: (image: ImageEntry) => (path: string) => boolean,
): Promise<Finding[]> {
  const attributePaths = files.map((f) => f.path).filter((p) => posix.basename(p) === '.gitattributes');
  const texts = await readTexts(
    source,
    attributePaths.sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b)),
  );
  const rules = [...texts].flatMap(([path, text]) => parseGitattributes(text, path));
  let git: Git | undefined;
  if (source.kind === 'worktree') {
    git = gitPort(source.root);
    const { inGit, outside } = await attributesOutsideTree(git, source.root);
    if (!inGit) return []; // outside git nothing converts content
    if (rules.length === 0 && !outside) return [];
  } else if (rules.length === 0) return [];
  const sets = new Map(images.map((image) => [image, imageFileSet(image, files, excluded(image))] as const));
  const fromGit =
    git === undefined ? undefined : await checkAttr(git, [...new Set([...sets.values()].flat().map((f) => f.path))]);
  return checkFilteredInputs(sets, rules, fromGit);
}
