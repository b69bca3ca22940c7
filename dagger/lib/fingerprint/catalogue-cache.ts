import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Catalogue } from '../catalogue/catalogue.ts';
import { readChecksummed, writeChecksummed } from './checksummed-file.ts';
import { ensureLocalDir, LOCAL_DIR } from './local-state.ts';

const FORMAT = 'pharos-catalogue/1';
// The loader's own source is part of the key: a changed schema or default can never meet an old entry.
const LOADER = [
  '../catalogue/catalogue-schema.ts',
  '../catalogue/parse-catalogue.ts',
  '../catalogue/catalogue.ts',
  '../catalogue/repo-path.ts',
  '../catalogue/image-repository.ts',
  '../errors/zod-issues.ts',
];

let loaderDigest: Promise<string> | undefined;
function loaderVersion(): Promise<string> {
  loaderDigest ??= Promise.all(LOADER.map((f) => readFile(new URL(f, import.meta.url)))).then(
    (parts) => createHash('sha256').update(Buffer.concat(parts)).digest('hex'),
    () => 'unknown',
  );
  return loaderDigest;
}

/**
 * Parses the catalogue, or returns the parse of identical text by the identical loader from
 * `.local/`: a warm run then loads neither the YAML parser nor zod.
 */
export async function parseCatalogueCached(root: string, text: Buffer, file: string): Promise<Catalogue> {
  const key = createHash('sha256')
    .update(await loaderVersion())
    .update('\0')
    .update(file)
    .update('\0')
    .update(text)
    .digest('hex');
  const path = join(root, LOCAL_DIR, 'fingerprint', 'catalogue.json');
  const body = await readChecksummed(path, FORMAT);
  if (body !== undefined) {
    try {
      const cached = JSON.parse(body) as { key?: string; catalogue?: Catalogue };
      if (cached.key === key && cached.catalogue !== undefined) return cached.catalogue;
    } catch {
      // rebuilt below
    }
  }
  const { parseCatalogue } = await import('../catalogue/parse-catalogue.ts');
  const catalogue = parseCatalogue(text.toString('utf8'), file);
  await ensureLocalDir(root, 'fingerprint')
    .then(() => writeChecksummed(path, FORMAT, JSON.stringify({ key, catalogue })))
    .catch(() => {}); // an unwritable cache only costs time
  return catalogue;
}
