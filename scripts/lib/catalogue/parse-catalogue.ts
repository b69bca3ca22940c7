import { LineCounter, parseDocument } from 'yaml';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { compareBytewise } from '../fingerprint/compare-bytewise.ts';
import { CatalogueError } from './catalogue-error.ts';
import { catalogueFileSchema, DEFAULT_EXCLUDE } from './catalogue-schema.ts';
import type { Catalogue, ImageEntry } from './catalogue.ts';

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

/** Parses and validates catalogue text; every problem is reported with file, key path and value. */
export function parseCatalogue(text: string, file: string): Catalogue {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, lineCounter });
  if (doc.errors.length > 0) {
    const lines = doc.errors.map((e) => `${file}:${lineCounter.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}`);
    throw new CatalogueError('yaml', `Cannot read catalogue "${file}": invalid YAML\n${lines.join('\n')}`, { details: { file } });
  }
  const raw: unknown = doc.toJS();
  const parsed = catalogueFileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = describeZodIssues(file, raw, parsed.error);
    throw new CatalogueError('invalid', `Cannot load catalogue "${file}": ${problems.length} problem(s)\n${problems.join('\n')}`, {
      details: { file, problems },
    });
  }
  const data = parsed.data;
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
      takeover: entry.takeover,
    }))
    .sort((a, b) => compareBytewise(a.name, b.name));
  return {
    file,
    platform: data.platform,
    exclude: data.exclude ?? DEFAULT_EXCLUDE,
    owned: data.owned ?? defaultOwned(images.map((entry) => entry.image)),
    images,
  };
}
