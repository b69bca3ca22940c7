import type { Channel } from './channel-schema.ts';
import type { AppliedView, DecideInput, DecideResult, Decision, Reason } from './decision.ts';
import { compareReleases, majorOf } from './compare-releases.ts';

export const DEFAULT_SKEW_MS = 5 * 60 * 1000;

function targetOf(channel: Channel): DecideResult['target'] {
  return 'release' in channel.target ? { release: channel.target.release } : { commit: channel.target.commit };
}

function sameTarget(channel: Channel, applied: AppliedView): boolean {
  if ('release' in channel.target) return applied.release === channel.target.release;
  return applied.release === undefined && applied.commit === channel.target.commit;
}

/** Host acceptance rules 1-8 of the pull-deployment spec, in order; pure. */
export function decide(input: DecideInput): DecideResult {
  const { evidence, policy, applied, deployState } = input;
  if (!evidence.ok)
    return {
      decision: 'refuse',
      reason: evidence.reason,
      message: evidence.message,
      environment: null,
      version: null,
      target: null,
    };
  const { channel, identity } = evidence;
  const result = (decision: Decision, reason: Reason, message: string): DecideResult => ({
    decision,
    reason,
    message,
    environment: channel.environment ?? null,
    version: channel.version ?? null,
    target: targetOf(channel),
  });

  // Rule 2, and the schema-1 migration switch (schema 1 carries no environment, version or expiry).
  if (channel.schema === 1 && !policy.acceptSchema1) {
    return result(
      'refuse',
      'malformed',
      'schema-1 channel refused: it names no environment, version or expiry (set HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL=1 only while migrating)',
    );
  }
  // Once a versioned channel was accepted, a seed channel can only be a downgrade replay.
  if (channel.schema === 1 && applied?.channelVersion !== undefined) {
    return result(
      'refuse',
      'version-replay',
      `schema-1 channel refused: this host already accepted schema-2 channel version ${applied.channelVersion}`,
    );
  }
  if (channel.schema === 2 && channel.environment !== policy.environment) {
    return result(
      'refuse',
      'environment',
      `channel is signed for environment "${channel.environment}", this host is "${policy.environment}"`,
    );
  }
  // Rule 3.
  if (applied !== undefined && !deployState.descendsFromAccepted) {
    return result(
      'refuse',
      'not-descendant',
      `deploy-state commit ${deployState.commit} does not descend from the last accepted ${applied.channelCommit}`,
    );
  }
  const appliedIdentity = applied?.channelIdentity ?? input.legacyAppliedIdentity;
  // Rule 4.
  // Stryker disable next-line ConditionalExpression: equivalent: a schema-1 channel (no version) over a versioned record was refused above
  if (applied?.channelVersion !== undefined && channel.version !== undefined) {
    if (channel.version < applied.channelVersion) {
      return result(
        'refuse',
        'version-replay',
        `channel version ${channel.version} is lower than the accepted ${applied.channelVersion}`,
      );
    }
    if (channel.version === applied.channelVersion && identity !== appliedIdentity) {
      return result(
        'refuse',
        'version-replay',
        `channel version ${channel.version} equals the accepted one but its bytes differ`,
      );
    }
  }
  // Rule 5.
  const skewMs = policy.skewMs ?? DEFAULT_SKEW_MS;
  // Stryker disable next-line ConditionalExpression: equivalent: without expires the sum is NaN, and NaN <= now is false
  if (channel.expires !== undefined && Date.parse(channel.expires) + skewMs <= policy.now.getTime()) {
    return result(
      'stale',
      'stale',
      `channel expired at ${channel.expires}; promotion or the daily refresh has not re-signed it`,
    );
  }
  // Rule 7, first half: our own unchanged request was applied, so only the accepted commit moves.
  if (applied !== undefined && appliedIdentity === identity) {
    return deployState.commit === applied.channelCommit
      ? result('noop', 'unchanged', 'channel unchanged since the last apply')
      : result(
          'noop',
          'other-environment-moved',
          `deploy-state moved to ${deployState.commit} but this environment's channel is unchanged`,
        );
  }
  // Rule 6. A major downgrade crosses a schema boundary: only the manual database procedure may take it, never a channel.
  if (
    applied !== undefined &&
    'release' in channel.target &&
    applied.release !== undefined &&
    majorOf(channel.target.release) < majorOf(applied.release)
  ) {
    return result(
      'refuse',
      'major-downgrade',
      `release ${channel.target.release} is a major downgrade from the running ${applied.release}: allowRollback does not permit it; restore the database and applied.json by hand first`,
    );
  }
  if (applied !== undefined && !channel.allowRollback) {
    if (
      'release' in channel.target &&
      applied.release !== undefined &&
      compareReleases(channel.target.release, applied.release) < 0
    ) {
      return result(
        'refuse',
        'rollback',
        `release ${channel.target.release} is older than the running ${applied.release} and allowRollback is not set`,
      );
    }
    if ('commit' in channel.target && input.targetDescendsFromRunning === false) {
      return result(
        'refuse',
        'rollback',
        `commit ${channel.target.commit} does not descend from the running ${applied.commit ?? '?'} (an older commit or another line) and allowRollback is not set`,
      );
    }
  }
  // Rule 7, second half, and rule 8 (freeze only spares a running target a restart).
  // Stryker disable next-line ConditionalExpression: equivalent: identity is always a string, so an undefined failedIdentity never equals it
  if (input.failedIdentity !== undefined && input.failedIdentity === identity) {
    return result('apply', 'retry', 'the last apply of this request failed; trying again');
  }
  if (applied !== undefined && sameTarget(channel, applied)) {
    if (channel.refresh)
      return result('noop', 'unchanged', 'the running target re-signed by the daily refresh; nothing restarts');
    if (channel.freeze && !channel.refreshDatabaseImage)
      return result('noop', 'frozen-running', 'frozen channel names the running target; nothing restarts');
    return result('apply', 'reapply', 'a new promotion of the running target; applying it again');
  }
  return result('apply', 'new-target', applied === undefined ? 'first install' : 'the channel names a new target');
}
