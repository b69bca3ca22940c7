import type { Channel } from './channel-schema.ts';

/** What decide() needs to know of the last applied request, whichever applied.json format recorded it. */
export interface AppliedView {
  readonly release: string | undefined;
  readonly commit: string | undefined;
  readonly channelCommit: string;
  readonly channelVersion: number | undefined;
  /** Missing in a legacy record until the first unchanged run records it. */
  readonly channelIdentity: string | undefined;
}

export type Decision = 'apply' | 'noop' | 'refuse' | 'stale';

export type ApplyReason = 'new-target' | 'reapply' | 'retry';
export type NoopReason = 'unchanged' | 'other-environment-moved' | 'frozen-running';
export type RefuseReason =
  | 'signature'
  | 'environment'
  | 'not-descendant'
  | 'version-replay'
  | 'rollback'
  | 'major-downgrade'
  | 'malformed'
  | 'too-large';
export type Reason = ApplyReason | NoopReason | RefuseReason | 'stale';

/** The channel after rule 1: verified and parsed with its identity, or why it was not. */
export type ChannelEvidence =
  | {
      readonly ok: true;
      readonly channel: Channel;
      readonly identity: string /** Who signed it (`key:<hint>` or `<SAN> (<issuer>)`), for logs and status. */;
      readonly signer?: string;
    }
  | { readonly ok: false; readonly reason: 'signature' | 'malformed' | 'too-large'; readonly message: string };

export interface HostPolicy {
  /** HEPHAESTUS_CHANNEL. */
  readonly environment: string;
  /** HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL=1. */
  readonly acceptSchema1: boolean;
  readonly now: Date;
  /** Allowed clock skew on `expires`; 5 minutes unless given. */
  readonly skewMs?: number;
}

/** Everything decide() needs, gathered by the shell (git ancestry, the applied record); decide() itself does no I/O. */
export interface DecideInput {
  readonly policy: HostPolicy;
  readonly evidence: ChannelEvidence;
  /** The fetched deploy-state commit, and whether it descends from (or equals) the last accepted one. */
  readonly deployState: { readonly commit: string; readonly descendsFromAccepted: boolean };
  readonly applied: AppliedView | undefined;
  /** For a record without channelIdentity: the identity of the channel at its accepted commit, if readable. */
  readonly legacyAppliedIdentity?: string | undefined;
  /** Commit form: whether the channel's commit descends from the running commit (undefined when no commit runs, or the same one). */
  readonly targetDescendsFromRunning?: boolean | undefined;
  /** Identity of the last request whose apply failed (kept by the host between ticks). */
  readonly failedIdentity?: string | undefined;
}

export interface DecideResult {
  readonly decision: Decision;
  readonly reason: Reason;
  readonly message: string;
  readonly environment: string | null;
  readonly version: number | null;
  readonly target: { readonly release: string } | { readonly commit: string } | null;
}
