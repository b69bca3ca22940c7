import type { Catalogue } from '../catalogue/catalogue.ts';
import type { CatalogueLines } from './catalogue-lines.ts';
import { finding } from './finding.ts';
import type { Finding } from './finding.ts';
import { imageRepository, isOwned, normaliseRepository } from './image-ref.ts';
import type { ManifestScan } from './scan-manifest.ts';

/** `uncatalogued-image`, `unknown-application`, `unused-image` (and unparsable manifests) across every scanned file. */
export function checkManifests(catalogue: Catalogue, scans: readonly ManifestScan[], lines: CatalogueLines): Finding[] {
  const out: Finding[] = [];
  const catalogued = new Set(catalogue.images.map((image) => normaliseRepository(image.image)));
  const named = new Set<string>();
  const applications = new Set<string>();
  for (const scan of scans) {
    for (const problem of scan.problems) {
      const what = problem.message.startsWith('kubectl kustomize')
        ? `${problem.message}; images its patches or remote resources introduce are not checked`
        : `Cannot parse YAML (${problem.message}); images named in this file are not checked`;
      out.push(finding('unreadable-manifest', '-', problem.file, problem.line, what));
    }
    for (const app of scan.applications) applications.add(app.name);
    for (const ref of scan.images) {
      const repo = imageRepository(ref.ref);
      named.add(normaliseRepository(repo));
      if (isOwned(repo, catalogue.owned) && !catalogued.has(normaliseRepository(repo))) {
        out.push(
          finding(
            'uncatalogued-image',
            repo,
            ref.file,
            ref.line,
            `${ref.where} image "${ref.ref}" has an owned prefix but no catalogue entry builds "${repo}": delivery would never update it`,
          ),
        );
      }
    }
  }
  for (const image of catalogue.images) {
    if (image.application !== undefined && !applications.has(image.application)) {
      out.push(
        finding(
          'unknown-application',
          image.name,
          catalogue.file,
          lines.at(image.name, 'application'),
          `application "${image.application}" of "${image.name}" is not an Argo CD Application under gitops/`,
        ),
      );
    }
    if (image.application !== undefined && !named.has(normaliseRepository(image.image))) {
      out.push(
        finding(
          'unused-image',
          image.name,
          catalogue.file,
          lines.at(image.name, 'image'),
          `image "${image.image}" of "${image.name}" is not named by any manifest under gitops/ or in what its Applications deploy (declare "deployed: false" for an image no Application deploys)`,
        ),
      );
    }
  }
  return out;
}
