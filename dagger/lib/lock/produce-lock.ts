import type { Catalogue } from '../catalogue/catalogue.ts';
import { LockError } from './lock-error.ts';
import type { ChartLock, ComposeLock, ReleaseLock } from './lock-schema.ts';

/** `api` -> HEPHAESTUS_IMAGE_API, `compat-web` -> HEPHAESTUS_IMAGE_COMPAT_WEB. */
export function imageVariable(name: string): string {
  return `HEPHAESTUS_IMAGE_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export interface ProduceInput {
  readonly release: string;
  readonly commit: string;
  readonly catalogue: Catalogue;
  /** Catalogue name -> pushed reference `<registry>/<image>@sha256:<hex>`, from the build. */
  readonly built: Readonly<Record<string, string>>;
  readonly chart?: ChartLock['chart'];
}

/** Binds every catalogue image to its own variable and its built digest; a missing, extra or misnamed digest is an input error (exit 2). */
export function produceLock(input: ProduceInput): ReleaseLock {
  const images: Record<string, string> = {};
  const known = new Set(input.catalogue.images.map((e) => e.name));
  for (const name of Object.keys(input.built)) {
    if (!known.has(name))
      throw new LockError('missing', `Cannot produce lock: built image "${name}" is not in the catalogue`, {
        details: { name },
        exitCode: 2,
      });
  }
  for (const entry of input.catalogue.images) {
    const ref = input.built[entry.name];
    if (ref === undefined)
      throw new LockError('missing', `Cannot produce lock: no built digest for catalogue image "${entry.name}"`, {
        details: { name: entry.name },
        exitCode: 2,
      });
    const repository = ref.slice(0, ref.indexOf('@'));
    if (repository !== entry.image && !repository.endsWith(`/${entry.image}`)) {
      throw new LockError(
        'binding',
        `Cannot produce lock: digest for "${entry.name}" is of "${repository}", not of its catalogue image "${entry.image}"`,
        { details: { name: entry.name, ref }, exitCode: 2 },
      );
    }
    images[imageVariable(entry.name)] = ref;
  }
  if (input.chart !== undefined)
    return {
      schemaVersion: 2,
      kind: 'chart',
      release: input.release,
      commit: input.commit,
      chart: input.chart,
      images,
    } satisfies ChartLock;
  return { schemaVersion: 1, release: input.release, commit: input.commit, images } satisfies ComposeLock;
}
