// The decisions a host takes at the edges of the acceptance rules: each test protects one decision a mutant of
// decide() changed while every other test still passed.
import { describe, expect, it } from 'vitest';
import { decide, DEFAULT_SKEW_MS } from '../../../scripts/lib/channel/decide.ts';
import type { AppliedView, DecideInput } from '../../../scripts/lib/channel/decision.ts';
import type { Channel } from '../../../scripts/lib/channel/channel-schema.ts';
import { C, channel, ID, IMAGES, input, NOW, runningRelease } from '../../support/decide-fixtures.ts';

/** A host whose channel named a commit: no release runs. */
const runningCommit: AppliedView = {
  release: undefined,
  commit: C(2),
  channelCommit: C(100),
  channelVersion: 17,
  channelIdentity: ID(17),
};
const schema1 = (over: Partial<Channel> = {}) =>
  channel({ schema: 1, environment: undefined, version: undefined, issued: undefined, expires: undefined, ...over });
const migrating = { environment: 'staging', acceptSchema1: true, now: NOW };

const outcome = (given: DecideInput) => {
  const { decision, reason } = decide(given);
  return `${decision} ${reason}`;
};

describe('decide() on a host that runs a commit', () => {
  it('applies a promoted release instead of comparing it with the missing running release', () => {
    expect(outcome(input({ applied: runningCommit }))).toBe('apply new-target');
    expect(outcome(input({ applied: runningCommit, ch: channel({ target: { release: 'v0.1.0' } }) }))).toBe(
      'apply new-target',
    );
    expect(outcome(input({ applied: runningCommit, ch: channel({ allowRollback: true }) }))).toBe('apply new-target');
  });

  it('applies a frozen channel naming a new commit: freeze spares only the running target', () => {
    expect(
      outcome(
        input({
          applied: runningCommit,
          ch: channel({ target: { commit: C(3), images: IMAGES }, freeze: true }),
          targetDescendsFromRunning: true,
        }),
      ),
    ).toBe('apply new-target');
  });

  it('restarts nothing for a frozen channel naming the running commit', () => {
    expect(
      outcome(
        input({ applied: runningCommit, ch: channel({ target: { commit: C(2), images: IMAGES }, freeze: true }) }),
      ),
    ).toBe('noop frozen-running');
  });

  it('applies a release whose tag points at the running commit: a release is never the same target as a commit', () => {
    expect(
      outcome(
        input({
          applied: { ...runningCommit, release: 'v1.2.3' },
          ch: channel({ target: { commit: C(2), images: IMAGES }, freeze: true }),
        }),
      ),
    ).toBe('apply new-target');
  });

  it('refuses an older commit without allowRollback and names the running commit', () => {
    const result = decide(
      input({
        applied: runningCommit,
        ch: channel({ target: { commit: C(1), images: IMAGES } }),
        targetDescendsFromRunning: false,
      }),
    );
    expect([result.decision, result.reason]).toEqual(['refuse', 'rollback']);
    expect(result.message).toBe(
      `commit ${C(1)} does not descend from the running ${C(2)} (an older commit or another line) and allowRollback is not set`,
    );
  });

  it('names "?" as the running commit when the record has none', () => {
    const result = decide(
      input({
        applied: { ...runningRelease, commit: undefined },
        ch: channel({ target: { commit: C(1), images: IMAGES } }),
        targetDescendsFromRunning: false,
      }),
    );
    expect(result.message).toContain('from the running ? (');
  });

  it('applies a commit when ancestry is unknown (undefined), refusing only a known non-descendant', () => {
    expect(
      outcome(
        input({
          applied: runningCommit,
          ch: channel({ target: { commit: C(3), images: IMAGES } }),
          targetDescendsFromRunning: undefined,
        }),
      ),
    ).toBe('apply new-target');
  });
});

describe('decide() with schema-1 channels while migrating', () => {
  it('installs a first release from a schema-1 channel (no applied record yet)', () => {
    const result = decide(input({ policy: migrating, applied: undefined, ch: schema1() }));
    expect([result.decision, result.reason, result.message]).toEqual(['apply', 'new-target', 'first install']);
    expect(result).toMatchObject({ environment: null, version: null, target: { release: 'v1.2.3' } });
  });

  it('applies a schema-1 channel over a record that never accepted a schema-2 channel', () => {
    expect(
      outcome(input({ policy: migrating, applied: { ...runningRelease, channelVersion: undefined }, ch: schema1() })),
    ).toBe('apply new-target');
  });

  it('refuses a schema-1 channel without the migration switch and says which setting allows it', () => {
    const result = decide(input({ applied: undefined, ch: schema1() }));
    expect([result.decision, result.reason]).toEqual(['refuse', 'malformed']);
    expect(result.message).toContain('HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL=1');
  });

  it('refuses a schema-1 replay once schema 2 was accepted and names the accepted version', () => {
    const result = decide(input({ policy: migrating, ch: schema1() }));
    expect([result.decision, result.reason]).toEqual(['refuse', 'version-replay']);
    expect(result.message).toBe('schema-1 channel refused: this host already accepted schema-2 channel version 17');
  });

  it('does not ask a schema-1 channel for an environment', () => {
    expect(
      outcome(input({ policy: { ...migrating, environment: 'production' }, applied: undefined, ch: schema1() })),
    ).toBe('apply new-target');
  });
});

describe('decide() with a record of a failed apply', () => {
  it('keeps a no-op a no-op when the failed request is a different one', () => {
    const running = channel({ version: 17 });
    expect(
      outcome(
        input({
          ch: running,
          identity: ID(17),
          deployState: { commit: C(100), descendsFromAccepted: true },
          failedIdentity: ID(40),
        }),
      ),
    ).toBe('noop unchanged');
    expect(
      outcome(input({ ch: channel({ target: { release: 'v1.2.2' }, freeze: true }), failedIdentity: ID(40) })),
    ).toBe('noop frozen-running');
    expect(
      outcome(input({ ch: channel({ target: { release: 'v1.2.2' }, refresh: true }), failedIdentity: ID(40) })),
    ).toBe('noop unchanged');
  });

  it('retries the failed request even when it names the running target', () => {
    expect(
      outcome(input({ ch: channel({ target: { release: 'v1.2.2' }, freeze: true }), failedIdentity: ID(18) })),
    ).toBe('apply retry');
  });

  it('does not retry when no apply failed', () => {
    expect(outcome(input({ failedIdentity: undefined }))).toBe('apply new-target');
  });
});

describe('decide() at the boundaries of its comparisons', () => {
  it('treats the channel as stale exactly at expires + skew, and fresh one millisecond before', () => {
    const expires = new Date(NOW.getTime() - DEFAULT_SKEW_MS).toISOString();
    expect(outcome(input({ ch: channel({ expires, issued: '2026-11-22T00:00:00Z' }) }))).toBe('stale stale');
    const fresh = new Date(NOW.getTime() - DEFAULT_SKEW_MS + 1).toISOString();
    expect(outcome(input({ ch: channel({ expires: fresh, issued: '2026-11-22T00:00:00Z' }) }))).toBe(
      'apply new-target',
    );
  });

  it('honours a configured skew instead of the default', () => {
    const expires = new Date(NOW.getTime() - 1000).toISOString();
    expect(
      outcome(
        input({
          ch: channel({ expires }),
          policy: { environment: 'staging', acceptSchema1: false, now: NOW, skewMs: 0 },
        }),
      ),
    ).toBe('stale stale');
    expect(
      outcome(
        input({
          ch: channel({ expires }),
          policy: { environment: 'staging', acceptSchema1: false, now: NOW, skewMs: 2000 },
        }),
      ),
    ).toBe('apply new-target');
  });

  it('the default skew is five minutes', () => {
    expect(DEFAULT_SKEW_MS).toBe(300_000);
  });

  it('a schema-1 channel has no expiry and is never stale', () => {
    expect(
      outcome(
        input({ policy: { ...migrating, now: new Date('2099-01-01T00:00:00Z') }, applied: undefined, ch: schema1() }),
      ),
    ).toBe('apply new-target');
  });

  it('applies a higher version as a new request', () => {
    expect(outcome(input({ ch: channel({ version: 18 }), identity: ID(18) }))).toBe('apply new-target');
  });

  it('applies the same release again under a higher version (a new promotion)', () => {
    expect(outcome(input({ ch: channel({ target: { release: 'v1.2.2' }, version: 19 }) }))).toBe('apply reapply');
  });

  it('an equal version with equal bytes is the applied request, not a replay', () => {
    expect(
      outcome(
        input({
          ch: channel({ version: 17 }),
          identity: ID(17),
          deployState: { commit: C(100), descendsFromAccepted: true },
        }),
      ),
    ).toBe('noop unchanged');
  });

  it('a same-major downgrade is a rollback, a same release is not', () => {
    expect(outcome(input({ ch: channel({ target: { release: 'v1.2.1' } }) }))).toBe('refuse rollback');
    expect(outcome(input({ ch: channel({ target: { release: 'v1.1.9' } }) }))).toBe('refuse rollback');
    expect(outcome(input({ ch: channel({ target: { release: 'v1.2.2' } }) }))).toBe('apply reapply');
    expect(outcome(input({ ch: channel({ target: { release: 'v2.0.0' } }) }))).toBe('apply new-target');
  });

  it('the major check compares majors only: v1.0.0 from v1.9.9 with allowRollback is allowed', () => {
    expect(
      outcome(
        input({
          ch: channel({ target: { release: 'v1.0.0' }, allowRollback: true }),
          applied: { ...runningRelease, release: 'v1.9.9' },
        }),
      ),
    ).toBe('apply new-target');
  });
});

describe('decide() explains every decision with the values it compared', () => {
  const message = (given: DecideInput) => decide(given).message;

  it('refusals name the environment, versions, commits and releases involved', () => {
    expect(message(input({ ch: channel({ environment: 'production' }) }))).toBe(
      'channel is signed for environment "production", this host is "staging"',
    );
    expect(message(input({ deployState: { commit: C(7), descendsFromAccepted: false } }))).toBe(
      `deploy-state commit ${C(7)} does not descend from the last accepted ${C(100)}`,
    );
    expect(message(input({ ch: channel({ version: 16 }) }))).toBe('channel version 16 is lower than the accepted 17');
    expect(message(input({ ch: channel({ version: 17 }), identity: ID(9) }))).toBe(
      'channel version 17 equals the accepted one but its bytes differ',
    );
    expect(message(input({ ch: channel({ target: { release: 'v1.2.1' } }) }))).toBe(
      'release v1.2.1 is older than the running v1.2.2 and allowRollback is not set',
    );
    expect(message(input({ ch: channel({ target: { release: 'v0.9.0' } }) }))).toMatch(
      /^release v0\.9\.0 is a major downgrade from the running v1\.2\.2: /,
    );
  });

  it('a stale channel names its expiry', () => {
    expect(message(input({ ch: channel({ expires: '2026-11-29T11:00:00Z', issued: '2026-11-22T11:00:00Z' }) }))).toBe(
      'channel expired at 2026-11-29T11:00:00Z; promotion or the daily refresh has not re-signed it',
    );
  });

  it('no-ops and applies say why', () => {
    const same = { ch: channel({ version: 17 }), identity: ID(17) };
    expect(message(input({ ...same, deployState: { commit: C(100), descendsFromAccepted: true } }))).toBe(
      'channel unchanged since the last apply',
    );
    expect(message(input(same))).toBe(`deploy-state moved to ${C(101)} but this environment's channel is unchanged`);
    expect(message(input({ failedIdentity: ID(18) }))).toBe('the last apply of this request failed; trying again');
    expect(message(input({ ch: channel({ target: { release: 'v1.2.2' }, refresh: true }) }))).toBe(
      'the running target re-signed by the daily refresh; nothing restarts',
    );
    expect(message(input({ ch: channel({ target: { release: 'v1.2.2' }, freeze: true }) }))).toBe(
      'frozen channel names the running target; nothing restarts',
    );
    expect(message(input({ ch: channel({ target: { release: 'v1.2.2' } }) }))).toBe(
      'a new promotion of the running target; applying it again',
    );
    expect(message(input())).toBe('the channel names a new target');
    expect(message(input({ applied: undefined }))).toBe('first install');
  });

  it('a refusal of unverified evidence keeps its reason and message and names no target', () => {
    expect(
      decide(
        input({ evidence: { ok: false, reason: 'signature', message: 'Cannot verify "channels/staging.json": bad' } }),
      ),
    ).toEqual({
      decision: 'refuse',
      reason: 'signature',
      message: 'Cannot verify "channels/staging.json": bad',
      environment: null,
      version: null,
      target: null,
    });
  });
});

describe('decide() without an applied record', () => {
  it('installs even when a legacy identity equals the channel (nothing runs to be unchanged)', () => {
    expect(outcome(input({ applied: undefined, legacyAppliedIdentity: ID(18) }))).toBe('apply new-target');
  });
});
