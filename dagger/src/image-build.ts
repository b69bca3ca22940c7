// One catalogue image as a Dagger build: the library picks the Dockerfile, context, args and fingerprint;
// Dagger runs Directory.dockerBuild and labels the result.
import type { Container, Directory, Platform, Secret } from '@dagger.io/dagger';
import { GraphQLRequestError } from '@dagger.io/dagger';
import { dockerBuildSpec } from '../lib/catalogue/docker-build-spec.ts';
import type { Catalogue, ImageEntry } from '../lib/catalogue/catalogue.ts';
import { ANNOTATION_COMMIT, LABEL_FINGERPRINT, LABEL_IMAGE } from '../lib/delivery/build-job.ts';
import { ModuleError } from './module-error.ts';

export interface PlannedImage {
  readonly entry: ImageEntry;
  readonly fingerprint: string;
  /** HEAD of the source, or "" when the source holds no commit. */
  readonly commit: string;
}

export interface RegistryLogin {
  readonly registry: string;
  readonly username: string | undefined;
  readonly password: Secret | undefined;
}

/** The labelled image of `planned`, lazily: nothing runs until a caller asks for a result. */
export function buildImage(source: Directory, planned: PlannedImage): Container {
  const spec = dockerBuildSpec(planned.entry);
  const context = spec.context === '.' ? source : source.directory(spec.context);
  return context
    .dockerBuild({
      dockerfile: spec.dockerfile,
      platform: spec.platform as Platform,
      buildArgs: [...spec.buildArgs],
      ...(spec.target === undefined ? {} : { target: spec.target }),
    })
    .withLabel(LABEL_IMAGE, planned.entry.name)
    .withLabel(LABEL_FINGERPRINT, planned.fingerprint)
    .withLabel(ANNOTATION_COMMIT, planned.commit)
    .withLabel('org.opencontainers.image.revision', planned.commit);
}

/** Pushes the image tagged with its fingerprint and answers by digest: `<registry>/<image>@sha256:…`. */
export async function publishImage(container: Container, planned: PlannedImage, login: RegistryLogin): Promise<string> {
  const repository = `${login.registry}/${planned.entry.image}`;
  const host = login.registry.split('/')[0] ?? login.registry;
  const authed =
    login.username !== undefined && login.password !== undefined
      ? container.withRegistryAuth(host, login.username, login.password)
      : container;
  let published: string;
  try {
    published = await authed.publish(`${repository}:${planned.fingerprint}`);
  } catch (cause) {
    const reason = cause instanceof GraphQLRequestError ? cause.message : (cause as Error).message;
    throw new ModuleError(
      'publish-failed',
      `Cannot publish image "${planned.entry.name}" to "${login.registry}": ${reason}`,
      { cause, details: { image: planned.entry.name, registry: login.registry } },
    );
  }
  const digest = /@(sha256:[0-9a-f]{64})$/.exec(published)?.[1];
  if (digest === undefined)
    throw new ModuleError(
      'publish-failed',
      `Cannot publish image "${planned.entry.name}": the engine answered "${published}", not a digest`,
    );
  return `${repository}@${digest}`;
}

export function entryOf(catalogue: Catalogue, name: string): ImageEntry {
  const entry = catalogue.images.find((image) => image.name === name);
  if (entry === undefined) {
    throw new ModuleError(
      'bad-argument',
      `Invalid argument "image" ${JSON.stringify(name)}: ${catalogue.file} has no such entry (known: ${catalogue.images.map((i) => i.name).join(', ')})`,
      { details: { argument: 'image', value: name } },
    );
  }
  return entry;
}
