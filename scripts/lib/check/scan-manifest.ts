import { posix } from 'node:path';
import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import { parseManifest } from './parse-manifest.ts';
import type { Document, Node, YAMLMap } from 'yaml';

export interface ImageRef {
  /** As written, tag and digest included. */
  readonly ref: string;
  readonly file: string;
  readonly line: number;
  /** Where it was named: `container`, `kustomization images`, `Application kustomize.images`. */
  readonly where: string;
}

export interface ApplicationRef {
  readonly name: string;
  readonly file: string;
  readonly line: number;
  /** `spec.source.path` and each `spec.sources[].path`, as written. */
  readonly paths: readonly SourcePath[];
}

export interface SourcePath {
  readonly path: string;
  /** `directory.recurse: true`: every folder below is read too. */
  readonly recurse: boolean;
  readonly line: number;
}

export interface ManifestScan {
  readonly images: ImageRef[];
  readonly applications: ApplicationRef[];
  /** A kustomization's `resources`, `bases` and `components`, as written (relative to its folder). */
  readonly resources: string[];
  /** A kustomization whose output reading cannot predict (patches, replacements, components, Helm, remote resources). */
  needsRender: boolean;
  /** YAML that could not be parsed: its images are unchecked. */
  readonly problems: { readonly file: string; readonly line: number; readonly message: string }[];
}

const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);
const KUSTOMIZATION_FILES = new Set(['kustomization.yaml', 'kustomization.yml', 'Kustomization']);
const RENDERED_KEYS = [
  'patches',
  'patchesStrategicMerge',
  'patchesJson6902',
  'replacements',
  'components',
  'helmCharts',
  'generators',
  'transformers',
];

/** A scalar string, through an alias (`image: *base`) to its anchor. */
function scalarIn(doc: Document.Parsed | undefined): (node: unknown) => string | undefined {
  return (node) => {
    const target = isAlias(node) && doc !== undefined ? node.resolve(doc) : node;
    return isScalar(target) && typeof target.value === 'string' ? target.value : undefined;
  };
}

/**
 * Image references and Argo CD Applications in one YAML file: containers of any workload
 * (init and ephemeral ones, CronJob templates, CRDs alike), kustomization `images`, and
 * Application `kustomize.images`. `workloads` is false for files outside gitops/manifests.
 */
export function scanManifest(text: string, file: string, workloads: boolean): ManifestScan {
  const { docs, counter } = parseManifest(text);
  let current: Document.Parsed | undefined;
  const str = (node: unknown) => scalarIn(current)(node);
  const scan: ManifestScan = { images: [], applications: [], resources: [], needsRender: false, problems: [] };
  const lineOf = (node: unknown) => {
    const range = (node as Node | null | undefined)?.range;
    return range ? counter.linePos(range[0]).line : 1;
  };
  const add = (node: unknown, where: string, value = str(node)) => {
    if (value !== undefined && value !== '') scan.images.push({ ref: value, file, line: lineOf(node), where });
  };
  const walk = (node: unknown): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = str(pair.key);
        if (key !== undefined && CONTAINER_LISTS.has(key) && isSeq(pair.value)) {
          for (const item of pair.value.items)
            if (isMap(item)) add(item.get('image', true), key === 'containers' ? 'container' : key.replace(/s$/, ''));
        }
        walk(pair.value);
      }
    } else if (isSeq(node)) for (const item of node.items) walk(item);
  };
  for (const doc of docs) {
    current = doc;
    const error = doc.errors[0];
    if (error !== undefined) {
      scan.problems.push({
        file,
        line: counter.linePos(error.pos[0]).line,
        message: error.message.split('\n')[0] ?? 'invalid YAML',
      });
      continue;
    }
    const root = doc.contents;
    if (!isMap(root)) continue;
    const apiVersion = str(root.get('apiVersion', true)) ?? '';
    const kind = str(root.get('kind', true));
    if (kind === 'Application' && apiVersion.startsWith('argoproj.io/')) {
      const name = root.getIn(['metadata', 'name'], true);
      if (str(name) !== undefined)
        scan.applications.push({
          name: str(name) ?? '',
          file,
          line: lineOf(name),
          paths: sourcePaths(root, str, lineOf),
        });
      applicationImages(root, str, add);
      continue;
    }
    if (!workloads) continue;
    if (
      KUSTOMIZATION_FILES.has(posix.basename(file)) ||
      (kind === 'Kustomization' && apiVersion.startsWith('kustomize.config.k8s.io/'))
    ) {
      for (const key of ['resources', 'bases', 'components']) {
        const list = root.get(key, true);
        if (isSeq(list))
          for (const item of list.items) if (str(item) !== undefined) scan.resources.push(str(item) ?? '');
      }
      scan.needsRender ||=
        RENDERED_KEYS.some((key) => root.has(key)) ||
        scan.resources.some((r) => /^[a-z][a-z0-9+.-]*:\/\/|^git@|^github\.com\//i.test(r));
      const images = root.get('images', true);
      if (isSeq(images)) {
        for (const item of images.items) {
          if (!isMap(item)) continue;
          add(item.get('name', true), 'kustomization images');
          add(item.get('newName', true), 'kustomization images');
        }
      }
    }
    walk(root);
  }
  return scan;
}

function applicationSources(root: YAMLMap): unknown[] {
  const sources: unknown[] = [root.getIn(['spec', 'source'], true)];
  const many = root.getIn(['spec', 'sources'], true);
  if (isSeq(many)) sources.push(...many.items);
  return sources;
}

/** The folders an Application renders: `spec.source.path`, `spec.sources[].path`. */
function sourcePaths(
  root: YAMLMap,
  str: (node: unknown) => string | undefined,
  lineOf: (node: unknown) => number,
): SourcePath[] {
  const out: SourcePath[] = [];
  for (const source of applicationSources(root)) {
    if (!isMap(source)) continue;
    const node = source.get('path', true);
    const path = str(node);
    if (path === undefined || path === '') continue;
    const recurse = source.getIn(['directory', 'recurse'], true);
    out.push({ path, recurse: isScalar(recurse) && recurse.value === true, line: lineOf(node) });
  }
  return out;
}

/** `spec.source(s).kustomize.images` entries: `name`, `name:tag`, or `name=newName:tag`. */
function applicationImages(
  root: YAMLMap,
  str: (node: unknown) => string | undefined,
  add: (node: unknown, where: string, value?: string) => void,
): void {
  for (const source of applicationSources(root)) {
    if (!isMap(source)) continue;
    const images = source.getIn(['kustomize', 'images'], true);
    if (!isSeq(images)) continue;
    for (const item of images.items) {
      for (const part of (str(item) ?? '').split('=')) add(item, 'Application kustomize.images', part);
    }
  }
}
