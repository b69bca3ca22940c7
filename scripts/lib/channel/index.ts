export { parseChannel, serializeChannel } from './parse-channel.ts';
export {
  channelV1Schema,
  channelV2CommitSchema,
  channelV2ReleaseSchema,
  imagesSchema,
  ENVIRONMENT,
  RELEASE_TAG,
  COMMIT_SHA,
  IMAGE_VARIABLE,
  PINNED_IMAGE,
} from './channel-schema.ts';
export type { Channel, ChannelTarget, ChannelV1, ChannelV2 } from './channel-schema.ts';
export { ChannelError } from './channel-error.ts';
export { decide, DEFAULT_SKEW_MS } from './decide.ts';
export type {
  AppliedView,
  DecideInput,
  DecideResult,
  Decision,
  Reason,
  ApplyReason,
  NoopReason,
  RefuseReason,
  ChannelEvidence,
  HostPolicy,
} from './decision.ts';
export { compareReleases } from './compare-releases.ts';
export { channelIdentity } from './channel-identity.ts';
