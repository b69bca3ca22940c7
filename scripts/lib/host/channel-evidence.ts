import { channelIdentity } from '../channel/channel-identity.ts';
import { ChannelError } from '../channel/channel-error.ts';
import { parseChannel } from '../channel/parse-channel.ts';
import type { ChannelEvidence } from '../channel/decision.ts';
import { VerificationError } from '../signing/signing-error.ts';
import { verifyBundle } from '../signing/verify-bundle.ts';
import type { TrustPolicy } from '../signing/trust-policy.ts';
import type { Git } from '../ports/git.ts';
import { readBlobs } from './deploy-state-cache.ts';
import type { BlobRead } from './deploy-state-cache.ts';
import { channelFiles, channelPath } from './channel-unchanged.ts';

/** Rule 1 and parsing: verify the exact bytes at `commit`, then parse; any failure becomes a refusal reason, never a crash. */
export async function channelEvidence(
  git: Git,
  commit: string,
  environment: string,
  policy: TrustPolicy,
): Promise<ChannelEvidence> {
  const file = channelPath(environment);
  return evidenceFromReads(await readBlobs(git, commit, channelFiles(environment)), file, commit, policy);
}

/** Rule 1 and parsing over the two reads of `channelFiles` at deploy-state `commit`. */
export function evidenceFromReads(
  reads: readonly BlobRead[],
  file: string,
  commit: string,
  policy: TrustPolicy,
): ChannelEvidence {
  const [channel, bundle] = reads;
  if (channel?.kind === 'too-large')
    return { ok: false, reason: 'too-large', message: `${file} is ${channel.size} bytes, over the 1 MiB limit` };
  if (bundle?.kind === 'too-large')
    return {
      ok: false,
      reason: 'too-large',
      message: `${file}.sigstore.json is ${bundle.size} bytes, over the 1 MiB limit`,
    };
  if (channel?.kind !== 'ok')
    return { ok: false, reason: 'signature', message: `${file} is missing at deploy-state ${commit}` };
  if (bundle?.kind !== 'ok')
    return { ok: false, reason: 'signature', message: `${file}.sigstore.json is missing at deploy-state ${commit}` };
  return evidenceFromBytes(channel.bytes, bundle.bytes, file, policy);
}

/** The pure part: verify first, parse only verified bytes. */
export function evidenceFromBytes(
  channelBytes: Uint8Array,
  bundleBytes: Uint8Array,
  file: string,
  policy: TrustPolicy,
): ChannelEvidence {
  let signer: string;
  try {
    signer = verifyBundle({ artifact: channelBytes, bundle: bundleBytes, label: file }, policy).signer;
  } catch (error) {
    if (error instanceof VerificationError && (error.code === 'signature' || error.code === 'too-large'))
      return { ok: false, reason: error.code, message: error.message };
    throw error;
  }
  try {
    return {
      ok: true,
      channel: parseChannel(channelBytes, file),
      identity: channelIdentity(channelBytes, bundleBytes),
      signer,
    };
  } catch (error) {
    if (error instanceof ChannelError) return { ok: false, reason: error.code, message: error.message };
    throw error;
  }
}
