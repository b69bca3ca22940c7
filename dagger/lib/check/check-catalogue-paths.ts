import type { Catalogue } from '../catalogue/catalogue.ts';
import type { SourceEntry } from '../fingerprint/tree-source.ts';
import type { CatalogueLines } from './catalogue-lines.ts';
import { finding } from './finding.ts';
import type { Finding } from './finding.ts';
import { indexOfPath } from '../fingerprint/sorted-paths.ts';
import { hasFilesUnder } from './sorted-files.ts';

/** `missing-dockerfile`, `missing-context`, `missing-input`: catalogue paths with nothing in the tree. */
export function checkCataloguePaths(
  catalogue: Catalogue,
  files: readonly SourceEntry[],
  lines: CatalogueLines,
): Finding[] {
  const out: Finding[] = [];
  const exists = (path: string) => hasFilesUnder(files, path);
  for (const image of catalogue.images) {
    if (indexOfPath(files, image.dockerfile) < 0) {
      out.push(
        finding(
          'missing-dockerfile',
          image.name,
          catalogue.file,
          lines.at(image.name, 'dockerfile'),
          `Dockerfile "${image.dockerfile}" of "${image.name}" is not in the tree`,
        ),
      );
    }
    if (!exists(image.context)) {
      out.push(
        finding(
          'missing-context',
          image.name,
          catalogue.file,
          lines.at(image.name, 'context'),
          `build context "${image.context}" of "${image.name}" has no files in the tree`,
        ),
      );
    }
    image.inputs.forEach((input, index) => {
      if (!exists(input)) {
        out.push(
          finding(
            'missing-input',
            image.name,
            catalogue.file,
            lines.at(image.name, 'inputs', index),
            `input "${input}" of "${image.name}" does not exist in the tree`,
          ),
        );
      }
    });
  }
  return out;
}
