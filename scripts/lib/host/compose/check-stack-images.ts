import { PINNED_IMAGE } from '../../channel/channel-schema.ts';
import { checkImageBindings } from '../../lock/check-lock.ts';
import type { ImageUse } from '../../lock/check-lock.ts';
import { LockError } from '../../lock/lock-error.ts';
import { ApplyError } from '../apply-error.ts';
import { imageVariableOf } from './stack-config.ts';
import type { StackService } from './stack-config.ts';

/**
 * Every service image must come from its own `${HEPHAESTUS_IMAGE_*}` and render to exactly the lock's digest for that
 * variable: never a tag, never a literal, never another service's digest. Pure.
 */
export function checkStackImages(
  file: string,
  raw: ReadonlyMap<string, string | undefined>,
  rendered: readonly StackService[],
  images: Readonly<Record<string, string>>,
  target: string,
): ImageUse[] {
  const uses: ImageUse[] = [];
  for (const service of rendered) {
    const where = `${file}: services.${service.name}.image`;
    const written = raw.get(service.name);
    const variable = imageVariableOf(written);
    if (variable === undefined) {
      const what = written === undefined ? 'no image (a build is not allowed on a host)' : `"${written}"`;
      throw new ApplyError(
        'binding',
        `Cannot use ${where}: it is ${what}; a host runs only \${HEPHAESTUS_IMAGE_*} digests from the lock`,
        { details: { file, service: service.name, image: written } },
      );
    }
    const image = service.image ?? '';
    if (images[variable] !== undefined && !PINNED_IMAGE.test(image)) {
      throw new ApplyError(
        'binding',
        `Cannot use ${where}: "${image}" is not a digest reference (<repository>@sha256:<64 hex>)`,
        { details: { file, service: service.name, image } },
      );
    }
    uses.push({ variable, image, where });
  }
  try {
    checkImageBindings({ schemaVersion: 1, release: target, commit: '0'.repeat(40), images: { ...images } }, uses);
  } catch (error) {
    if (error instanceof LockError)
      throw new ApplyError('binding', error.message, { details: error.details, cause: error });
    throw error;
  }
  return uses;
}
