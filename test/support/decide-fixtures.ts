// What the decide() tests share: a clock, ids, a schema-2 channel, a running release, and a DecideInput around them.
import type { AppliedView, DecideInput } from '../../scripts/lib/channel/decision.ts';
import type { Channel } from '../../scripts/lib/channel/channel-schema.ts';

export const NOW = new Date('2026-11-29T12:00:00Z');
export const C = (n: number): string => n.toString(16).padStart(40, '0');
export const ID = (n: number): string => n.toString(16).padStart(64, 'a');
export const IMAGES = { HEPHAESTUS_IMAGE_API: `ghcr.io/o/api@sha256:${'1'.repeat(64)}` };

export function channel(over: Partial<Channel> = {}): Channel {
  return {
    schema: 2,
    environment: 'staging',
    version: 18,
    issued: '2026-11-29T10:00:00Z',
    expires: '2026-12-06T10:00:00Z',
    target: { release: 'v1.2.3' },
    allowRollback: false,
    freeze: false,
    refreshDatabaseImage: false,
    refresh: false,
    ...over,
  };
}

/** The host runs release v1.2.2, accepted from channel version 17. */
export const runningRelease: AppliedView = {
  release: 'v1.2.2',
  commit: C(2),
  channelCommit: C(100),
  channelVersion: 17,
  channelIdentity: ID(17),
};

export function input(over: Partial<DecideInput> & { ch?: Channel; identity?: string } = {}): DecideInput {
  const { ch, identity, ...rest } = over;
  return {
    policy: { environment: 'staging', acceptSchema1: false, now: NOW },
    evidence: { ok: true, channel: ch ?? channel(), identity: identity ?? ID(18) },
    deployState: { commit: C(101), descendsFromAccepted: true },
    applied: runningRelease,
    ...rest,
  };
}
