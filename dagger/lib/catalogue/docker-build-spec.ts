import { posix } from 'node:path';
import type { ImageEntry } from './catalogue.ts';
import { CatalogueError } from './catalogue-error.ts';

/** What a Docker build of one catalogue image takes: the context folder and, relative to it, the Dockerfile. */
export interface DockerBuildSpec {
  readonly context: string;
  readonly dockerfile: string;
  readonly target: string | undefined;
  readonly buildArgs: readonly { readonly name: string; readonly value: string }[];
  readonly platform: string;
}

/** The build of `entry` as every builder runs it; a Dockerfile outside its context cannot be built. */
export function dockerBuildSpec(entry: ImageEntry): DockerBuildSpec {
  const dockerfile = posix.relative(entry.context === '.' ? '' : entry.context, entry.dockerfile);
  if (dockerfile.startsWith('../')) {
    throw new CatalogueError(
      'invalid',
      `Cannot build image "${entry.name}": Dockerfile "${entry.dockerfile}" is outside its context "${entry.context}"`,
      { details: { image: entry.name } },
    );
  }
  return {
    context: entry.context,
    dockerfile,
    target: entry.target,
    buildArgs: entry.args.map(([name, value]) => ({ name, value })),
    platform: entry.platform,
  };
}
