import { z } from 'zod';
import { COMMIT_SHA, PINNED_IMAGE, RELEASE_TAG } from '../channel/channel-schema.ts';
import { UsageError } from '../errors/toolkit-error.ts';
import { describeZodIssues } from '../errors/zod-issues.ts';
import type { ReleaseLock } from './lock-schema.ts';
import { serializeLock } from './parse-lock.ts';
import { produceLock } from './produce-lock.ts';
import type { ProduceInput } from './produce-lock.ts';

/** The build's output: catalogue name -> `<registry>/<image>@sha256:<hex>`. */
export const builtSchema = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'expected a catalogue image name'),
  z.string().regex(PINNED_IMAGE, 'expected <repository>@sha256:<64 hex>'),
);

/** Parses the built-digests JSON text; every bad field is named. */
export function parseBuilt(text: string, file: string): Record<string, string> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new UsageError(`Cannot read built digests "${file}": not JSON (${(cause as Error).message})`, { cause });
  }
  const parsed = builtSchema.safeParse(json);
  if (!parsed.success)
    throw new UsageError(`Cannot read built digests:\n${describeZodIssues(file, json, parsed.error).join('\n')}`);
  return parsed.data;
}

export interface PrepareLockInput extends ProduceInput {
  /** Signs the exact lock bytes into a Sigstore bundle (JSON text). */
  readonly sign?: (bytes: Buffer) => Promise<string>;
}

export interface PreparedLock {
  readonly lock: ReleaseLock;
  readonly bytes: Buffer;
  /** `<lock>.sigstore.json`, when signed. */
  readonly bundle: string | undefined;
}

/** Checked before the commit is opened, so a typo is named rather than reported as a git failure. */
export function checkReleaseInputs(release: string, commit: string): void {
  if (!RELEASE_TAG.test(release)) throw new UsageError(`Cannot produce lock: release "${release}" is not vX.Y.Z`);
  if (!COMMIT_SHA.test(commit))
    throw new UsageError(`Cannot produce lock: commit "${commit}" is not 40 lower-case hex digits`);
}

/** The release workflow's lock: checked inputs, the lock bytes a host verifies, and their signature. */
export async function prepareReleaseLock(input: PrepareLockInput): Promise<PreparedLock> {
  checkReleaseInputs(input.release, input.commit);
  const { release, commit, catalogue, built, chart } = input;
  // Stryker disable next-line ConditionalExpression: equivalent: produceLock reads chart: undefined as no chart
  const lock = produceLock({ release, commit, catalogue, built, ...(chart === undefined ? {} : { chart }) });
  const bytes = Buffer.from(serializeLock(lock));
  return { lock, bytes, bundle: input.sign === undefined ? undefined : await input.sign(bytes) };
}
