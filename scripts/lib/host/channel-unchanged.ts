import { channelIdentity } from '../channel/channel-identity.ts';
import type { Git } from '../ports/git.ts';
import { readBlobs } from './deploy-state-cache.ts';

export function channelPath(environment: string): string {
  return `channels/${environment}.json`;
}

/** The channel file and its bundle, in the order `evidenceFromReads` takes them. */
export function channelFiles(environment: string): [string, string] {
  const file = channelPath(environment);
  return [file, `${file}.sigstore.json`];
}

/** The identity of the channel at an older commit, for a record written without one; undefined if unreadable. */
export async function identityAt(git: Git, commit: string, environment: string): Promise<string | undefined> {
  const blobs = await readBlobs(git, commit, channelFiles(environment)).catch(() => undefined);
  const [channel, bundle] = blobs ?? [];
  if (channel?.kind !== 'ok' || bundle?.kind !== 'ok') return undefined;
  return channelIdentity(channel.bytes, bundle.bytes);
}
