import { isMap, LineCounter, parseDocument } from 'yaml';
import type { Document, Node } from 'yaml';
import { describeZodIssues } from '../errors/zod-issues.ts';
import type { LineOf } from '../errors/zod-issues.ts';
import { compareBytewise } from './compare-bytewise.ts';
import { CatalogueError } from './catalogue-error.ts';
import { catalogueFileSchema, DEFAULT_EXCLUDE } from './catalogue-schema.ts';
import type { CatalogueFile } from './catalogue-schema.ts';
import type { Catalogue, ImageEntry } from './catalogue.ts';
import { normaliseRepository } from './image-repository.ts';

/** Docker's rule: a first segment with a dot or a port, or `localhost`, is a registry host. */
function hasRegistryHost(image: string): boolean {
  const first = image.split('/')[0] ?? '';
  return image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
}

export function defaultOwned(images: readonly string[]): string[] {
  const prefixes = new Set<string>();
  for (const image of images) {
    const segments = image.split('/');
    const keep = hasRegistryHost(image) ? 2 : 1;
    if (segments.length > keep) prefixes.add(`${segments.slice(0, keep).join('/')}/`);
  }
  return [...prefixes].sort(compareBytewise);
}

/** The line of the deepest node the document has along `path` (a missing key points at its parent). */
function lineLookup(doc: Document.Parsed, counter: LineCounter): LineOf {
  return (path) => {
    for (let depth = path.length; depth >= 0; depth--) {
      const keys = path.slice(0, depth);
      const node = (keys.length === 0 ? doc.contents : doc.getIn(keys, true)) as Node | null | undefined;
      // an unknown or missing key: the key itself when its parent map holds it
      const parent =
        keys.length === 0
          ? undefined
          : ((keys.length === 1 ? doc.contents : doc.getIn(keys.slice(0, -1), true)) as unknown);
      if (isMap(parent)) {
        const pair = parent.items.find((p) => (p.key as { value?: unknown } | null)?.value === keys.at(-1));
        const keyRange = (pair?.key as Node | null | undefined)?.range;
        if (keyRange) return counter.linePos(keyRange[0]).line;
      }
      if (node?.range) return counter.linePos(node.range[0]).line;
    }
    return undefined;
  };
}

/** Rules across fields the schema cannot state: `application` or `deployed: false`, one entry per repository. */
function entryProblems(raw: unknown, file: string, lineOf: LineOf): string[] {
  const images = (raw as { images?: unknown } | null)?.images;
  if (images === null || typeof images !== 'object') return [];
  const out: string[] = [];
  const at = (path: PropertyKey[]) => `${file}:${lineOf(path) ?? 1}: ${path.join('.')}`;
  const byRepository = new Map<string, string>();
  for (const [name, entry] of Object.entries(images as Record<string, unknown>)) {
    if (entry === null || typeof entry !== 'object') continue;
    const { application, deployed, image } = entry as { application?: unknown; deployed?: unknown; image?: unknown };
    if (application === undefined && deployed === undefined) {
      out.push(
        `${at(['images', name])}: "application" is required: name the Argo CD Application whose workloads use this image, or write "deployed: false" for an image no Application deploys`,
      );
    }
    if (application !== undefined && deployed === false) {
      out.push(
        `${at(['images', name, 'deployed'])}: "deployed: false" and "application" contradict each other: keep one (value ${JSON.stringify(application)})`,
      );
    }
    if (typeof image === 'string') {
      const repository = normaliseRepository(image);
      const first = byRepository.get(repository);
      if (first !== undefined) {
        out.push(
          `${at(['images', name, 'image'])}: image "${image}" is also the image of "${first}": one repository is one catalogue entry (images told apart only by tag cannot be told apart by the manifests; give each its own repository)`,
        );
      } else byRepository.set(repository, name);
    }
  }
  return out;
}

/** Parses and validates catalogue text; every problem is reported with file, line, key path and value. */
export function parseCatalogue(text: string, file: string): Catalogue {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, lineCounter });
  if (doc.errors.length > 0) {
    const lines = doc.errors.map((e) => `${file}:${lineCounter.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}`);
    throw new CatalogueError('yaml', `Cannot read catalogue "${file}": invalid YAML\n${lines.join('\n')}`, {
      details: { file },
    });
  }
  const raw: unknown = doc.toJS();
  const lineOf = lineLookup(doc, lineCounter);
  const parsed = catalogueFileSchema.safeParse(raw);
  const problems = [
    ...(parsed.success ? [] : describeZodIssues(file, raw, parsed.error, lineOf)),
    ...entryProblems(raw, file, lineOf),
  ];
  if (!parsed.success || problems.length > 0) {
    throw new CatalogueError(
      'invalid',
      `Cannot load catalogue "${file}": ${problems.length} problem(s)\n${problems.join('\n')}`,
      {
        details: { file, problems },
      },
    );
  }
  return toCatalogue(parsed.data, file);
}

function toCatalogue(data: CatalogueFile, file: string): Catalogue {
  const exclude = data.exclude ?? DEFAULT_EXCLUDE;
  const images: ImageEntry[] = Object.entries(data.images)
    .map(([name, entry]) => ({
      name,
      image: entry.image,
      application: entry.application,
      context: entry.context,
      dockerfile: entry.dockerfile,
      target: entry.target,
      args: Object.entries(entry.args ?? {}).sort(([a], [b]) => compareBytewise(a, b)),
      platform: entry.platform ?? data.platform,
      inputs: entry.inputs,
      exclude: entry.exclude ?? exclude,
      takeover: entry.takeover,
    }))
    .sort((a, b) => compareBytewise(a.name, b.name));
  return {
    file,
    platform: data.platform,
    exclude,
    owned: data.owned ?? defaultOwned(images.map((entry) => entry.image)),
    images,
  };
}
