import type { Catalogue } from '../catalogue/catalogue.ts';
import { analyseDockerfile } from '../dockerfile/analyse-dockerfile.ts';
import { splitReference } from './image-reference.ts';
import { SeedError } from './seed-error.ts';

/** The build argument every Dockerfile names its bases through; the build Job sets it to the in-cluster registry. */
export const BASE_REGISTRY_ARG = 'BASE_REGISTRY';

/** One base image as the in-cluster build asks for it. */
export interface BaseImage {
  /** `<repository><:tag|@digest>` inside the in-cluster registry, and on the workstation's Docker. */
  readonly path: string;
  /** The catalogue images built on it, sorted. */
  readonly images: readonly string[];
}

/**
 * The bases the catalogue's images resolve when the build Job sets `BASE_REGISTRY` to `registry` (only the stages
 * each image's target needs, as BuildKit resolves them). A base outside that registry would need egress the build
 * namespace does not have: every such use is reported, with its Dockerfile and line.
 */
export async function catalogueBases(
  catalogue: Catalogue,
  read: (path: string) => Promise<Buffer | undefined>,
  registry: string,
): Promise<BaseImage[]> {
  const uses = new Map<string, Set<string>>();
  const problems: string[] = [];
  for (const entry of catalogue.images) {
    const text = await read(entry.dockerfile);
    if (text === undefined) {
      problems.push(`image "${entry.name}": Dockerfile "${entry.dockerfile}" is not in the source`);
      continue;
    }
    const args = new Map([...entry.args, [BASE_REGISTRY_ARG, registry]]);
    const analysis = analyseDockerfile(text.toString('utf8'), { args, target: entry.target, platform: entry.platform });
    for (const use of analysis.images) {
      const ref = splitReference(use.reference);
      if (ref.host !== registry) {
        problems.push(
          `image "${entry.name}": ${entry.dockerfile} line ${use.line} names "${use.reference}", outside the in-cluster registry (name it "\${${BASE_REGISTRY_ARG}}/${ref.repository}${ref.suffix}")`,
        );
        continue;
      }
      const path = `${ref.repository}${ref.suffix}`;
      uses.set(path, (uses.get(path) ?? new Set()).add(entry.name));
    }
  }
  if (problems.length > 0)
    throw new SeedError(
      'base-outside-registry',
      `Cannot seed the base images into "${registry}":\n${problems.map((p) => `  ${p}`).join('\n')}`,
      { details: { registry, problems } },
    );
  return [...uses]
    .map(([path, images]) => ({ path, images: [...images].sort() }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
