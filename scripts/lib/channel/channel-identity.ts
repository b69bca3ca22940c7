import { createHash } from 'node:crypto';

/** hex SHA-256 of the channel bytes, one NUL byte, and the bundle bytes: every promotion signs anew, so every promotion is a new identity. */
export function channelIdentity(channel: Uint8Array, bundle: Uint8Array): string {
  return createHash('sha256')
    .update(channel)
    .update(Buffer.from([0]))
    .update(bundle)
    .digest('hex');
}
