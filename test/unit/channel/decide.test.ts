import { describe, expect, it } from 'vitest';
import { decide } from '../../../scripts/lib/channel/decide.ts';
import type { DecideInput } from '../../../scripts/lib/channel/decision.ts';
import type { Channel } from '../../../scripts/lib/channel/channel-schema.ts';
import { C, channel, ID, IMAGES, input, NOW, runningRelease } from '../../support/decide-fixtures.ts';
import type { AppliedView } from '../../../scripts/lib/host/applied-record.ts';

const applied: AppliedView = runningRelease;

const schema1 = channel({
  schema: 1,
  environment: undefined,
  version: undefined,
  issued: undefined,
  expires: undefined,
});

describe('decide() implements the host acceptance rules in order', () => {
  const cases: [string, DecideInput, string, string][] = [
    [
      'rule 1: refuses a channel whose signature did not verify',
      input({ evidence: { ok: false, reason: 'signature', message: 'bad' } }),
      'refuse',
      'signature',
    ],
    [
      'rule 1: refuses a channel over 1 MiB',
      input({ evidence: { ok: false, reason: 'too-large', message: 'big' } }),
      'refuse',
      'too-large',
    ],
    [
      'rule 1: refuses verified bytes that do not parse',
      input({ evidence: { ok: false, reason: 'malformed', message: 'bad json' } }),
      'refuse',
      'malformed',
    ],
    [
      'rule 2: refuses a channel for another environment',
      input({ ch: channel({ environment: 'production' }) }),
      'refuse',
      'environment',
    ],
    [
      'rule 2: refuses a schema-1 channel without HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL',
      input({ ch: schema1 }),
      'refuse',
      'malformed',
    ],
    [
      'rule 2: accepts a schema-1 channel with HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL=1',
      input({
        ch: schema1,
        policy: { environment: 'staging', acceptSchema1: true, now: NOW },
        applied: { ...applied, channelVersion: undefined },
      }),
      'apply',
      'new-target',
    ],
    [
      'rule 4: refuses a schema-1 channel once a schema-2 version was accepted, even with HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL=1',
      input({ ch: schema1, policy: { environment: 'staging', acceptSchema1: true, now: NOW } }),
      'refuse',
      'version-replay',
    ],
    [
      'rule 3: refuses a deploy-state commit that does not descend from the accepted one',
      input({ deployState: { commit: C(999), descendsFromAccepted: false } }),
      'refuse',
      'not-descendant',
    ],
    [
      'rule 3: does not apply on first install (nothing accepted yet)',
      input({ applied: undefined, deployState: { commit: C(999), descendsFromAccepted: false } }),
      'apply',
      'new-target',
    ],
    ['rule 4: refuses a lower version', input({ ch: channel({ version: 16 }) }), 'refuse', 'version-replay'],
    [
      'rule 4: refuses an equal version with different bytes',
      input({ ch: channel({ version: 17 }), identity: ID(99) }),
      'refuse',
      'version-replay',
    ],
    [
      'rule 4: accepts an equal version with identical bytes',
      input({
        ch: channel({ version: 17, target: { release: 'v1.2.2' } }),
        identity: ID(17),
        deployState: { commit: C(100), descendsFromAccepted: true },
      }),
      'noop',
      'unchanged',
    ],
    [
      'rule 5: reports an expired channel as stale',
      input({ ch: channel({ expires: '2026-11-29T11:00:00Z', issued: '2026-11-22T11:00:00Z' }) }),
      'stale',
      'stale',
    ],
    [
      'rule 5: allows 5 minutes of clock skew',
      input({ ch: channel({ expires: '2026-11-29T11:56:00Z', issued: '2026-11-22T11:00:00Z' }) }),
      'apply',
      'new-target',
    ],
    [
      'rule 5: stale even for the unchanged running request',
      input({
        ch: channel({ version: 17, target: { release: 'v1.2.2' }, expires: '2026-11-29T11:00:00Z' }),
        identity: ID(17),
      }),
      'stale',
      'stale',
    ],
    [
      'rule 6: refuses a lower release without allowRollback',
      input({ ch: channel({ target: { release: 'v1.2.1' } }) }),
      'refuse',
      'rollback',
    ],
    [
      'rule 6: compares releases numerically (v1.10.0 is newer than v1.9.0)',
      input({ ch: channel({ target: { release: 'v1.10.0' } }), applied: { ...applied, release: 'v1.9.0' } }),
      'apply',
      'new-target',
    ],
    [
      'rule 6: applies a lower release with allowRollback',
      input({ ch: channel({ target: { release: 'v1.2.1' }, allowRollback: true }) }),
      'apply',
      'new-target',
    ],
    [
      'rule 6: refuses a commit the running commit descends from',
      input({ ch: channel({ target: { commit: C(1), images: IMAGES } }), targetDescendsFromRunning: false }),
      'refuse',
      'rollback',
    ],
    [
      'rule 6: refuses a commit of another line (not a descendant of the running release commit)',
      input({ ch: channel({ target: { commit: C(9), images: IMAGES } }), targetDescendsFromRunning: false }),
      'refuse',
      'rollback',
    ],
    [
      'rule 6: applies a commit that descends from the running release commit',
      input({ ch: channel({ target: { commit: C(9), images: IMAGES } }), targetDescendsFromRunning: true }),
      'apply',
      'new-target',
    ],
    [
      'rule 6: applies an older commit with allowRollback',
      input({
        ch: channel({ target: { commit: C(1), images: IMAGES }, allowRollback: true }),
        targetDescendsFromRunning: false,
      }),
      'apply',
      'new-target',
    ],
    [
      'rule 6: refuses a major release downgrade even with allowRollback',
      input({
        ch: channel({ target: { release: 'v0.95.1' }, allowRollback: true }),
        applied: { ...applied, release: 'v1.0.0' },
      }),
      'refuse',
      'major-downgrade',
    ],
    [
      'rule 6: refuses a major release downgrade without allowRollback too',
      input({ ch: channel({ target: { release: 'v1.9.9' } }), applied: { ...applied, release: 'v2.0.0' } }),
      'refuse',
      'major-downgrade',
    ],
    [
      'rule 6: applies a minor downgrade within the same major with allowRollback',
      input({
        ch: channel({ target: { release: 'v1.0.0' }, allowRollback: true }),
        applied: { ...applied, release: 'v1.3.0' },
      }),
      'apply',
      'new-target',
    ],
    [
      'rule 7: a frozen promotion of the running target replaces its unapplied (failed) request and restarts nothing',
      input({ ch: channel({ target: { release: 'v1.2.2' }, freeze: true }), failedIdentity: ID(40) }),
      'noop',
      'frozen-running',
    ],
    [
      'rule 7: restarts nothing for its own unchanged request',
      input({
        ch: channel({ version: 17 }),
        identity: ID(17),
        deployState: { commit: C(100), descendsFromAccepted: true },
      }),
      'noop',
      'unchanged',
    ],
    [
      'rule 7: records a moved deploy-state when another environment moved',
      input({ ch: channel({ version: 17 }), identity: ID(17) }),
      'noop',
      'other-environment-moved',
    ],
    ['rule 7: tries again a request whose apply failed', input({ failedIdentity: ID(18) }), 'apply', 'retry'],
    [
      'rule 7: applies a new promotion of the running target again',
      input({ ch: channel({ target: { release: 'v1.2.2' } }) }),
      'apply',
      'reapply',
    ],
    [
      'rule 7: restarts nothing for a frozen promotion of the running target',
      input({ ch: channel({ target: { release: 'v1.2.2' }, freeze: true }) }),
      'noop',
      'frozen-running',
    ],
    [
      'rule 7: a frozen promotion asking for refreshDatabaseImage applies again',
      input({
        ch: channel({ target: { commit: C(2), images: IMAGES }, freeze: true, refreshDatabaseImage: true }),
        applied: { ...applied, release: undefined },
      }),
      'apply',
      'reapply',
    ],
    [
      'rule 7: the daily refresh of the running target restarts nothing',
      input({ ch: channel({ target: { release: 'v1.2.2' }, refresh: true }) }),
      'noop',
      'unchanged',
    ],
    [
      'rule 7: a refresh of a target this host never applied applies it',
      input({ ch: channel({ target: { release: 'v1.2.4' }, refresh: true }) }),
      'apply',
      'new-target',
    ],
    [
      'rule 8: applies a frozen channel naming a new target like any other',
      input({ ch: channel({ freeze: true }) }),
      'apply',
      'new-target',
    ],
    [
      'switching from a release to the same commit is a new target',
      input({ ch: channel({ target: { commit: C(2), images: IMAGES } }) }),
      'apply',
      'new-target',
    ],
  ];
  it.each(cases)('%s', (_name, given, decision, reason) => {
    const result = decide(given);
    expect({ decision: result.decision, reason: result.reason }).toEqual({ decision, reason });
  });

  it('reports the environment, version and target it decided on', () => {
    expect(decide(input())).toMatchObject({ environment: 'staging', version: 18, target: { release: 'v1.2.3' } });
    expect(decide(input({ ch: channel({ target: { commit: C(5), images: IMAGES } }) })).target).toEqual({
      commit: C(5),
    });
  });
});

describe('decide() with an applied record written before channelIdentity existed', () => {
  const legacy: AppliedView = {
    release: 'v1.2.2',
    commit: C(2),
    channelCommit: C(100),
    channelVersion: undefined,
    channelIdentity: undefined,
  };

  it('treats the channel at the accepted commit as the applied request: unchanged restarts nothing', () => {
    const result = decide(
      input({
        applied: legacy,
        ch: channel({ target: { release: 'v1.2.2' } }),
        identity: ID(5),
        legacyAppliedIdentity: ID(5),
        deployState: { commit: C(100), descendsFromAccepted: true },
      }),
    );
    expect([result.decision, result.reason]).toEqual(['noop', 'unchanged']);
  });

  it('applies a new promotion made after the legacy record', () => {
    const result = decide(input({ applied: legacy, legacyAppliedIdentity: ID(5) }));
    expect([result.decision, result.reason]).toEqual(['apply', 'new-target']);
  });

  it('skips the version rule, which the legacy record cannot answer', () => {
    const result = decide(input({ applied: legacy, ch: channel({ version: 1 }) }));
    expect([result.decision, result.reason]).toEqual(['apply', 'new-target']);
  });

  it('still refuses a deploy-state that does not descend from its accepted commit', () => {
    const result = decide(input({ applied: legacy, deployState: { commit: C(7), descendsFromAccepted: false } }));
    expect(result.reason).toBe('not-descendant');
  });
});
