import { z } from 'zod';
import { PINNED_IMAGE } from '../channel/channel-schema.ts';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { imageVariable } from '../lock/produce-lock.ts';
import { CiError } from './ci-error.ts';

/** `dagger call build-changed` output: catalogue name -> `<registry>/<image>@sha256:<hex>`. */
export const builtSchema = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'expected a catalogue image name'),
  z.string().regex(PINNED_IMAGE, 'expected <repository>@sha256:<64 hex>'),
);

export interface ImageMap {
  /** HEPHAESTUS_IMAGE_* -> pinned reference: the pins promotion reads from the `hephaestus-images` check run. */
  readonly pins: Readonly<Record<string, string>>;
  /** One attestation subject per image: the repository and its digest. */
  readonly subjects: readonly { readonly name: string; readonly digest: string }[];
}

/** Parses build-changed's JSON (`source` names it in errors) into channel pins and attestation subjects. */
export function imageMap(text: string, source: string): ImageMap {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new CiError('built', `Cannot read built images "${source}": not JSON (${(cause as Error).message})`, {
      cause,
      details: { file: source },
    });
  }
  const parsed = builtSchema.safeParse(json);
  if (!parsed.success)
    throw new CiError(
      'built',
      `Cannot read built images:\n${describeZodIssues(source, json, parsed.error).join('\n')}`,
      { details: { file: source } },
    );
  const entries = Object.entries(parsed.data).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0)
    throw new CiError(
      'built',
      `Cannot map built images "${source}": it lists no image (a main build publishes every image)`,
      { details: { file: source } },
    );
  return {
    pins: Object.fromEntries(entries.map(([name, ref]) => [imageVariable(name), ref])),
    subjects: entries.map(([, ref]) => ({
      name: ref.slice(0, ref.indexOf('@')),
      digest: ref.slice(ref.indexOf('@') + 1),
    })),
  };
}
