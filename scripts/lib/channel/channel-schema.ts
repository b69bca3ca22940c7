import { z } from 'zod';

export const ENVIRONMENT = /^[a-z][a-z0-9-]{0,62}$/;
export const RELEASE_TAG = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;
export const COMMIT_SHA = /^[0-9a-f]{40}$/;
export const IMAGE_VARIABLE = /^HEPHAESTUS_IMAGE_[A-Z0-9_]+$/;
export const PINNED_IMAGE = /^[a-z0-9][a-z0-9._\/:-]*@sha256:[0-9a-f]{64}$/;
const RFC3339 = z.iso.datetime({ offset: true });

export const imagesSchema = z.record(
  z.string().regex(IMAGE_VARIABLE, 'expected HEPHAESTUS_IMAGE_<NAME>'),
  z.string().regex(PINNED_IMAGE, 'expected <repository>@sha256:<64 hex>'),
);

const flags = {
  allowRollback: z.boolean().default(false),
  freeze: z.boolean().default(false),
};

// Written by `promote.ts refresh`: the same target re-signed with a new version and expiry, which restarts nothing.
const refresh = { refresh: z.boolean().default(false) };

const schema2Common = {
  schema: z.literal(2),
  environment: z.string().regex(ENVIRONMENT, 'expected a lower-case environment name'),
  version: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  issued: RFC3339,
  expires: RFC3339,
  ...flags,
  ...refresh,
};

export const channelV2ReleaseSchema = z.strictObject({
  ...schema2Common,
  release: z.string().regex(RELEASE_TAG, 'expected vX.Y.Z'),
});
export const channelV2CommitSchema = z.strictObject({
  ...schema2Common,
  commit: z.string().regex(COMMIT_SHA, 'expected 40 lower-case hex digits'),
  images: imagesSchema,
  refreshDatabaseImage: z.boolean().default(false),
});

/** The seed's channel: a target and flags, with no environment, version or expiry inside the signed bytes. */
export const channelV1Schema = z.union([
  z.strictObject({
    schema: z.literal(1).optional(),
    release: z.string().regex(RELEASE_TAG, 'expected vX.Y.Z'),
    ...flags,
  }),
  z.strictObject({
    schema: z.literal(1).optional(),
    commit: z.string().regex(COMMIT_SHA, 'expected 40 lower-case hex digits'),
    images: imagesSchema,
    refreshDatabaseImage: z.boolean().default(false),
    ...flags,
  }),
]);

export type ChannelV2 = z.output<typeof channelV2ReleaseSchema> | z.output<typeof channelV2CommitSchema>;
export type ChannelV1 = z.output<typeof channelV1Schema>;

/** What a channel asks for: a release tag, or a commit with its image pins. */
export type ChannelTarget =
  | { readonly release: string }
  | { readonly commit: string; readonly images: Readonly<Record<string, string>> };

export interface Channel {
  readonly schema: 1 | 2;
  /** Absent in schema 1. */
  readonly environment: string | undefined;
  readonly version: number | undefined;
  readonly issued: string | undefined;
  readonly expires: string | undefined;
  readonly target: ChannelTarget;
  readonly allowRollback: boolean;
  readonly freeze: boolean;
  readonly refreshDatabaseImage: boolean;
  /** A daily re-signing of an unchanged target (schema 2 only). */
  readonly refresh: boolean;
}
