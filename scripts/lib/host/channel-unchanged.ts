import { channelIdentity } from '../channel/channel-identity.ts';
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
