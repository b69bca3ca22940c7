import { channelIdentity } from '../channel/channel-identity.ts';
import type { ChannelEvidence } from '../channel/decision.ts';
import { parseChannel } from '../channel/parse-channel.ts';
import type { Git } from '../ports/git.ts';
import { readBlobs } from './deploy-state-cache.ts';

export function channelPath(environment: string): string {
  return `channels/${environment}.json`;
}

/** The identity of the channel at an older commit, for a record written without one; undefined if unreadable. */
export async function identityAt(git: Git, commit: string, environment: string): Promise<string | undefined> {
  const file = channelPath(environment);
  const blobs = await readBlobs(git, commit, [file, `${file}.sigstore.json`]).catch(() => undefined);
  const [channel, bundle] = blobs ?? [];
  if (channel?.kind !== 'ok' || bundle?.kind !== 'ok') return undefined;
  return channelIdentity(channel.bytes, bundle.bytes);
}

/**
 * Nothing new on deploy-state: the bytes at the accepted commit whose identity applied.json recorded were verified when it
 * was recorded, so they are parsed (for expiry) without loading any verification code. Anything else: undefined.
 */
export async function unchangedEvidence(
  git: Git,
  commit: string,
  environment: string,
  recordedIdentity: string,
): Promise<ChannelEvidence | undefined> {
  const file = channelPath(environment);
  const [channel, bundle] = await readBlobs(git, commit, [file, `${file}.sigstore.json`]).catch(() => []);
  if (
    channel?.kind !== 'ok' ||
    bundle?.kind !== 'ok' ||
    channelIdentity(channel.bytes, bundle.bytes) !== recordedIdentity
  )
    return undefined;
  try {
    return {
      ok: true,
      channel: parseChannel(channel.bytes, file),
      identity: recordedIdentity,
      signer: 'verified when accepted (unchanged since)',
    };
  } catch {
    return undefined;
  }
}
