import { z } from 'zod';
import { lazySchema } from '../errors/lazy-schema.ts';
import { COMMIT_SHA, RELEASE_TAG } from '../channel/channel-schema.ts';
import type { AppliedView } from '../channel/decision.ts';

export type { AppliedView };

// Built on first use, like the schemas below: a command that never reads applied.json does not build them.
const parts = lazySchema(() => {
  const commit = z.string().regex(COMMIT_SHA, 'expected 40 lower-case hex digits');
  const release = z.string().regex(RELEASE_TAG, 'expected vX.Y.Z');
  const rfc3339 = z.iso.datetime({ offset: true });
  const previous = z.strictObject({ release: release.optional(), commit: commit.optional() }).nullable().optional();
  return { commit, release, rfc3339, previous };
});

/** applied.json as this release writes it. */
export const appliedV2Schema = lazySchema(() => {
  const { commit, release, rfc3339, previous } = parts;
  return z.strictObject({
    schema: z.literal(2),
    release: release.optional(),
    commit,
    channelCommit: commit,
    channelVersion: z.number().int().positive().optional(),
    channelIdentity: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 hex digits'),
    appliedAt: rfc3339,
    previous,
  });
});

/** The seed's applied.json: no schema, no channel identity; its accepted commit is all that counts. */
export const appliedLegacySchema = lazySchema(() => {
  const { commit, release, rfc3339, previous } = parts;
  return z
    .looseObject({
      release: release.optional(),
      commit: commit.optional(),
      channelCommit: commit,
      appliedAt: rfc3339,
      previous,
    })
    .refine((r) => r.release !== undefined || r.commit !== undefined, { message: 'expected release or commit' });
});

export type AppliedV2 = z.output<typeof appliedV2Schema>;
export type AppliedLegacy = z.output<typeof appliedLegacySchema>;

export type AppliedRecord =
  | { readonly format: 2; readonly record: AppliedV2 }
  | { readonly format: 'legacy'; readonly record: AppliedLegacy };

export function appliedView(applied: AppliedRecord): AppliedView {
  const r = applied.record;
  return {
    release: r.release,
    commit: r.commit,
    channelCommit: r.channelCommit,
    channelVersion: applied.format === 2 ? applied.record.channelVersion : undefined,
    channelIdentity: applied.format === 2 ? applied.record.channelIdentity : undefined,
  };
}
