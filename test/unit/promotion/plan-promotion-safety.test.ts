// Decisions of planPromotion() that mutation testing showed no earlier test protected.
import { describe, expect, it } from 'vitest';
import { planPromotion as planFor } from '../../../scripts/lib/promotion/index.ts';
import type { History, PromotionRequest } from '../../../scripts/lib/promotion/index.ts';
import type { ChannelTarget } from '../../../scripts/lib/channel/index.ts';
import { ciHistoryDouble, failingCiHistory } from '../../support/ci-history-double.ts';
import { C, current, history, NO_FLAGS, pins, planPromotion } from '../../support/promotion-fixtures.ts';

const short = (n: number) => C(n).slice(0, 12);
const auto = (n: number): PromotionRequest => ({ mode: 'auto', commit: C(n), images: pins(n) });
const manual = (target: ChannelTarget, flags = NO_FLAGS): PromotionRequest => ({ mode: 'manual', target, flags });

describe('manual promotion: what counts as a rollback', () => {
  it('a release lower than the current one is a rollback even when its tag is on a hotfix branch, not an ancestor', async () => {
    // v1.0.1 was tagged on a branch off v1.0.0: its commit is no ancestor of v1.1.0's, but hosts compare versions.
    const hotfix: History = {
      ...history,
      releaseCommit: async (tag) => (tag === 'v1.0.1' ? 'h'.repeat(40) : history.releaseCommit(tag)),
      isAncestor: async () => false,
    };
    await expect(
      planPromotion(
        manual({ release: 'v1.0.1' }),
        current({ target: { release: 'v1.1.0' } }),
        hotfix,
        ciHistoryDouble([]),
      ),
    ).rejects.toMatchObject({
      code: 'rollback',
      exitCode: 2,
      message: 'Cannot promote v1.0.1: it is older than the current v1.1.0; pass --allow-rollback',
    });
  });

  it('promoting the current release or commit again (to change its flags) is no rollback', async () => {
    const frozen = { ...NO_FLAGS, freeze: true };
    expect(
      await planPromotion(
        manual({ release: 'v1.1.0' }, frozen),
        current({ target: { release: 'v1.1.0' } }),
        history,
        ciHistoryDouble([]),
      ),
    ).toMatchObject({ action: 'write', flags: frozen });
    expect(
      await planPromotion(manual({ commit: C(3), images: pins(3) }, frozen), current(), history, ciHistoryDouble([])),
    ).toMatchObject({ action: 'write', flags: frozen });
    // The release's own commit, named as a commit, is the same target too.
    expect(
      await planPromotion(
        manual({ commit: C(4), images: pins(4) }),
        current({ target: { release: 'v1.1.0' } }),
        history,
        ciHistoryDouble([]),
      ),
    ).toMatchObject({ action: 'write' });
  });

  it('an older commit than the current one is refused, naming both by their short forms', async () => {
    await expect(
      planPromotion(manual({ commit: C(2), images: pins(2) }), current(), history, ciHistoryDouble([])),
    ).rejects.toMatchObject({
      code: 'rollback',
      message: `Cannot promote ${short(2)}: it is older than the current ${short(3)}; pass --allow-rollback`,
    });
  });

  it('the first manual promotion onto an empty deploy-state writes the target, with no rollback check', async () => {
    expect(await planPromotion(manual({ release: 'v1.0.0' }), { kind: 'none' }, history, ciHistoryDouble([]))).toEqual({
      action: 'write',
      target: { release: 'v1.0.0' },
      flags: NO_FLAGS,
      refresh: false,
      message: 'promote v1.0.0',
    });
  });

  it('writes a commit target as a promotion, not a refresh, named by its short form', async () => {
    expect(
      await planPromotion(manual({ commit: C(5), images: pins(5) }), current(), history, ciHistoryDouble([])),
    ).toEqual({
      action: 'write',
      target: { commit: C(5), images: pins(5) },
      flags: NO_FLAGS,
      refresh: false,
      message: `promote ${short(5)}`,
    });
  });

  it('names the environment it refuses to freeze, and the commit it cannot find', async () => {
    await expect(
      planFor(
        manual({ release: 'v1.1.0' }, { ...NO_FLAGS, freeze: true }),
        current(),
        history,
        ciHistoryDouble([]),
        'production',
      ),
    ).rejects.toMatchObject({
      details: { environment: 'production' },
      message: 'Cannot freeze "production": only staging follows main, so only staging can be frozen',
    });
    await expect(
      planPromotion(manual({ commit: 'f'.repeat(40), images: pins(5) }), current(), history, ciHistoryDouble([])),
    ).rejects.toMatchObject({ details: { commit: 'f'.repeat(40) } });
  });
});

describe('automatic promotion: the most recent run and the deploy-state commit message', () => {
  it('takes the run that completed last even when the API lists it first', async () => {
    const listed = [
      { commit: C(5), completedAt: '2026-11-29T11:00:00Z', images: pins(5) },
      { commit: C(4), completedAt: '2026-11-29T09:00:00Z', images: pins(4) },
    ];
    expect(
      await planPromotion(
        auto(3),
        current({ target: { commit: C(2), images: pins(2) } }),
        history,
        ciHistoryDouble(listed),
      ),
    ).toMatchObject({ target: { commit: C(5), images: pins(5) } });
  });

  it('of two runs completed at the same instant, keeps the one listed first', async () => {
    const tie = [
      { commit: C(4), completedAt: '2026-11-29T11:00:00Z', images: pins(4) },
      { commit: C(5), completedAt: '2026-11-29T11:00:00Z', images: pins(5) },
    ];
    expect(
      await planPromotion(
        auto(3),
        current({ target: { commit: C(2), images: pins(2) } }),
        history,
        ciHistoryDouble(tie),
      ),
    ).toMatchObject({ target: { commit: C(4) } });
  });

  it('when the most recent run is the requested commit, promotes it with its own pins and looks nothing up', async () => {
    const ci = ciHistoryDouble([{ commit: C(4), completedAt: '2026-11-29T11:00:00Z', images: pins(40) }]);
    expect(await planPromotion(auto(4), current(), history, ci)).toEqual({
      action: 'write',
      target: { commit: C(4), images: pins(4) },
      flags: NO_FLAGS,
      refresh: false,
      message: `promote ${short(4)}`,
    });
    expect(ci.imageLookups).toEqual([]);
  });

  it('a request without pins takes those of its own CI run', async () => {
    const ci = ciHistoryDouble([{ commit: C(4), completedAt: '2026-11-29T11:00:00Z', images: pins(4) }]);
    expect(
      await planPromotion({ mode: 'auto', commit: C(4), images: undefined }, current(), history, ci),
    ).toMatchObject({ target: { commit: C(4), images: pins(4) } });
    expect(ci.imageLookups).toEqual([C(4)]);
  });

  it('says it moved to a newer run, and writes a promotion with no flags', async () => {
    expect(
      await planPromotion(
        auto(4),
        current(),
        history,
        ciHistoryDouble([{ commit: C(5), completedAt: '2026-11-29T11:00:00Z', images: pins(5) }]),
      ),
    ).toEqual({
      action: 'write',
      target: { commit: C(5), images: pins(5) },
      flags: NO_FLAGS,
      refresh: false,
      message: `promote ${short(5)} (most recent successful CI run of main, descends from the requested ${short(4)})`,
    });
  });

  it("says why it kept the requested commit when the newer run's pins could not be read", async () => {
    const ci = ciHistoryDouble([{ commit: C(5), completedAt: '2026-11-29T11:00:00Z' }]);
    expect(await planPromotion(auto(4), current(), history, ci)).toMatchObject({
      message: `promote ${short(4)} (CI lookup failed, promoting the requested commit: no images for ${C(5)})`,
      refresh: false,
    });
    expect(await planPromotion(auto(4), current(), history, failingCiHistory('HTTP 503'))).toMatchObject({
      message: `promote ${short(4)} (CI lookup failed, promoting the requested commit: HTTP 503)`,
    });
  });

  it('names the commit and the channel in every skip', async () => {
    expect(
      await planPromotion(
        auto(5),
        current({ freeze: true, target: { release: 'v1.1.0' } }),
        history,
        ciHistoryDouble([]),
      ),
    ).toEqual({
      action: 'skip',
      reason: 'frozen',
      message: 'channel is frozen at v1.1.0; automatic promotion leaves it alone',
    });
    expect(await planPromotion(auto(3), current(), history, ciHistoryDouble([]))).toEqual({
      action: 'skip',
      reason: 'already-promoted',
      message: `${short(3)} is already promoted`,
    });
    expect(
      await planPromotion(auto(2), current({ target: { release: 'v1.1.0' } }), history, ciHistoryDouble([])),
    ).toEqual({ action: 'skip', reason: 'older-build', message: `${short(2)} is older than the promoted v1.1.0` });
  });

  it('names the commit it refuses to promote onto an empty deploy-state', async () => {
    await expect(planPromotion(auto(1), { kind: 'none' }, history, ciHistoryDouble([]))).rejects.toMatchObject({
      message: expect.stringMatching(
        new RegExp(`^Cannot promote ${short(1)} automatically: the environment has no channel yet\\.`),
      ),
    });
  });
});

describe('refresh and unreadable channels', () => {
  it('a refresh keeps every flag of the channel and names its target', async () => {
    const flags = { allowRollback: true, freeze: true, refreshDatabaseImage: true };
    expect(
      await planPromotion(
        { mode: 'refresh' },
        current({ ...flags, target: { release: 'v1.1.0' } }),
        history,
        ciHistoryDouble([]),
      ),
    ).toEqual({ action: 'write', target: { release: 'v1.1.0' }, flags, refresh: true, message: 'refresh v1.1.0' });
  });

  it('says why it cannot refresh, and what to do with an unreadable channel', async () => {
    await expect(planPromotion({ mode: 'refresh' }, { kind: 'none' }, history, ciHistoryDouble([]))).rejects.toThrow(
      'Cannot refresh: the environment has no channel yet',
    );
    await expect(
      planPromotion({ mode: 'refresh' }, { kind: 'unreadable', message: 'bad json' }, history, ciHistoryDouble([])),
    ).rejects.toThrow('Cannot promote: the current channel is unreadable (bad json); fix or remove it by hand');
  });

  it('refuses to decide from, or sign over, a channel the promotion trust did not sign, naming the file', async () => {
    const unverified = {
      kind: 'unverified',
      file: 'environments/staging/channel.json',
      message: 'signed by another key',
    } as const;
    for (const request of [{ mode: 'refresh' } as const, auto(1), manual({ release: 'v1.1.0' })]) {
      await expect(planPromotion(request, unverified, history, ciHistoryDouble([]))).rejects.toMatchObject({
        code: 'unverified-channel',
        details: { file: 'environments/staging/channel.json' },
        message: expect.stringMatching(
          /^Cannot promote "staging": environments\/staging\/channel\.json on deploy-state does not verify with the promotion trust \(signed by another key\); nothing was signed\./,
        ),
      });
    }
  });
});
