import { describe, expect, it } from 'vitest';
import { planPromotion as planFor, PromotionError } from '../../../scripts/lib/promotion/index.ts';
import type { PromotionRequest } from '../../../scripts/lib/promotion/index.ts';
import { ciHistoryDouble, failingCiHistory } from '../../support/ci-history-double.ts';
import { C, current, history, NO_FLAGS, pins, planPromotion } from '../../support/promotion-fixtures.ts';

const auto = (commit: string): PromotionRequest => ({
  mode: 'auto',
  commit,
  images: pins(Number.parseInt(commit, 16)),
});
const builds = [1, 2, 3, 4, 5].map((n) => ({ commit: C(n), completedAt: `2026-11-29T10:0${n}:00Z`, images: pins(n) }));

describe('automatic promotion', () => {
  it('promotes the requested commit when nothing newer succeeded', async () => {
    const plan = await planPromotion(auto(C(4)), current(), history, ciHistoryDouble(builds.slice(0, 4)));
    expect(plan).toMatchObject({ action: 'write', target: { commit: C(4), images: pins(4) }, flags: NO_FLAGS });
  });

  it('moves to the most recent successful commit of main that strictly descends from the requested one', async () => {
    const ci = ciHistoryDouble(builds);
    const plan = await planPromotion(auto(C(4)), current(), history, ci);
    expect(plan).toMatchObject({ action: 'write', target: { commit: C(5), images: pins(5) } });
    expect(ci.imageLookups).toEqual([C(5)]);
  });

  it('picks by completion time, not by position in the list', async () => {
    const late = [
      { ...builds[4]!, completedAt: '2026-11-29T09:00:00Z' },
      { ...builds[3]!, completedAt: '2026-11-29T11:00:00Z' },
    ];
    const plan = await planPromotion(
      auto(C(3)),
      current({ target: { commit: C(2), images: pins(2) } }),
      history,
      ciHistoryDouble(late),
    );
    expect(plan).toMatchObject({ target: { commit: C(4) } });
  });

  it('leaves a frozen channel alone', async () => {
    expect(await planPromotion(auto(C(5)), current({ freeze: true }), history, ciHistoryDouble(builds))).toMatchObject({
      action: 'skip',
      reason: 'frozen',
    });
  });

  it('leaves an already-promoted commit alone', async () => {
    expect(await planPromotion(auto(C(3)), current(), history, ciHistoryDouble([]))).toMatchObject({
      action: 'skip',
      reason: 'already-promoted',
    });
  });

  it('leaves an older completed build alone', async () => {
    expect(await planPromotion(auto(C(2)), current(), history, ciHistoryDouble([]))).toMatchObject({
      action: 'skip',
      reason: 'older-build',
    });
  });

  it("leaves an older build alone also when the channel names a release (compares with the tag's commit)", async () => {
    const onRelease = current({ target: { release: 'v1.1.0' } });
    expect(await planPromotion(auto(C(3)), onRelease, history, ciHistoryDouble([]))).toMatchObject({
      action: 'skip',
      reason: 'older-build',
    });
    expect(await planPromotion(auto(C(5)), onRelease, history, ciHistoryDouble([]))).toMatchObject({
      action: 'write',
      target: { commit: C(5) },
    });
  });

  it('stops on an unreadable channel instead of overwriting a freeze it cannot see', async () => {
    await expect(
      planPromotion(auto(C(5)), { kind: 'unreadable', message: 'bad json' }, history, ciHistoryDouble([])),
    ).rejects.toMatchObject({ code: 'unreadable-channel' });
  });

  it('stops when the history comparison fails', async () => {
    await expect(planPromotion(auto(C(99)), current(), history, ciHistoryDouble([]))).rejects.toBeInstanceOf(
      PromotionError,
    );
  });

  it('refuses to write onto an empty deploy-state: the initial channel is a manual promotion', async () => {
    await expect(planPromotion(auto(C(1)), { kind: 'none' }, history, ciHistoryDouble(builds))).rejects.toMatchObject({
      code: 'no-initial-channel',
      message: expect.stringMatching(/Establish the initial channel with a manual promotion/),
    });
  });
});

describe('automatic promotion: the most recent successful CI run of main', () => {
  it('takes only the single most recent run: an older successful descendant does not count', async () => {
    const ci = ciHistoryDouble([
      { ...builds[4]!, completedAt: '2026-11-29T10:00:00Z' },
      { ...builds[1]!, completedAt: '2026-11-29T12:00:00Z' },
    ]);
    const plan = await planPromotion(auto(C(4)), current(), history, ci);
    expect(plan).toMatchObject({ action: 'write', target: { commit: C(4), images: pins(4) } });
    expect(ci.imageLookups).toEqual([]);
  });

  it('stays on the requested commit when the most recent run is that commit itself', async () => {
    const plan = await planPromotion(
      auto(C(4)),
      current(),
      history,
      ciHistoryDouble([
        { ...builds[4]!, completedAt: '2026-11-29T09:00:00Z' },
        { ...builds[3]!, completedAt: '2026-11-29T11:00:00Z' },
      ]),
    );
    expect(plan).toMatchObject({ action: 'write', target: { commit: C(4) } });
  });

  it('looks only when the requested commit would advance the channel: an older or promoted request stays a skip', async () => {
    const ci = ciHistoryDouble(builds);
    expect(await planPromotion(auto(C(3)), current(), history, ci)).toMatchObject({
      action: 'skip',
      reason: 'already-promoted',
    });
    expect(await planPromotion(auto(C(2)), current(), history, ci)).toMatchObject({
      action: 'skip',
      reason: 'older-build',
    });
    expect(ci.buildLookups).toBe(0);
  });

  it('names the requested commit in the message when it moves to the newer one', async () => {
    const plan = await planPromotion(auto(C(4)), current(), history, ciHistoryDouble(builds));
    expect(plan.message).toMatch(new RegExp(`promote ${C(5).slice(0, 12)} .*requested ${C(4).slice(0, 12)}`));
  });
});

describe('automatic promotion when the CI lookup fails', () => {
  it('continues with the requested commit and its own pins', async () => {
    const plan = await planPromotion(auto(C(4)), current(), history, failingCiHistory());
    expect(plan).toMatchObject({
      action: 'write',
      target: { commit: C(4), images: pins(4) },
      message: expect.stringMatching(/CI lookup failed.*HTTP 503/),
    });
  });

  it("continues with the requested commit when only the newer run's image pins cannot be read", async () => {
    const ci = ciHistoryDouble([...builds.slice(0, 4), { commit: C(5), completedAt: '2026-11-29T10:09:00Z' }]);
    const plan = await planPromotion(auto(C(4)), current(), history, ci);
    expect(plan).toMatchObject({ action: 'write', target: { commit: C(4), images: pins(4) } });
    expect(ci.imageLookups).toEqual([C(5)]);
  });

  it('still applies the existing checks to the requested commit: already promoted, older, frozen', async () => {
    expect(await planPromotion(auto(C(3)), current(), history, failingCiHistory())).toMatchObject({
      action: 'skip',
      reason: 'already-promoted',
    });
    expect(await planPromotion(auto(C(2)), current(), history, failingCiHistory())).toMatchObject({
      action: 'skip',
      reason: 'older-build',
    });
    expect(await planPromotion(auto(C(5)), current({ freeze: true }), history, failingCiHistory())).toMatchObject({
      action: 'skip',
      reason: 'frozen',
    });
  });

  it('still stops when the history comparison itself fails', async () => {
    const stranger = ciHistoryDouble([{ commit: C(99), completedAt: '2026-11-29T12:00:00Z', images: pins(99) }]);
    await expect(planPromotion(auto(C(4)), current(), history, stranger)).rejects.toMatchObject({ code: 'history' });
  });
});

describe('manual promotion', () => {
  it('promotes a release with the flags given', async () => {
    const flags = { allowRollback: false, freeze: true, refreshDatabaseImage: false };
    expect(
      await planPromotion(
        { mode: 'manual', target: { release: 'v1.1.0' }, flags },
        current(),
        history,
        ciHistoryDouble([]),
      ),
    ).toMatchObject({ action: 'write', flags });
  });

  it('freezes only staging, the environment that follows main', async () => {
    const flags = { ...NO_FLAGS, freeze: true };
    const frozen = { mode: 'manual' as const, target: { release: 'v1.1.0' }, flags };
    await expect(planFor(frozen, current(), history, ciHistoryDouble([]), 'production')).rejects.toMatchObject({
      code: 'freeze-not-following',
      exitCode: 2,
      message: expect.stringMatching(/only staging can be frozen/),
    });
    expect(
      await planFor({ ...frozen, flags: NO_FLAGS }, current(), history, ciHistoryDouble([]), 'production'),
    ).toMatchObject({ action: 'write' });
    expect(await planFor(frozen, current(), history, ciHistoryDouble([]), 'staging')).toMatchObject({
      action: 'write',
      flags,
    });
  });

  it('never looks up CI runs', async () => {
    const plan = await planPromotion(
      { mode: 'manual', target: { commit: C(4), images: pins(4) }, flags: NO_FLAGS },
      current(),
      history,
      failingCiHistory(),
    );
    expect(plan).toMatchObject({ action: 'write', target: { commit: C(4) } });
  });

  it('promotes over a frozen channel (freeze binds automatic promotion only)', async () => {
    const plan = await planPromotion(
      { mode: 'manual', target: { commit: C(5), images: pins(5) }, flags: NO_FLAGS },
      current({ freeze: true }),
      history,
      ciHistoryDouble([]),
    );
    expect(plan.action).toBe('write');
  });

  it('refuses a rollback without --allow-rollback, and allows it with', async () => {
    const back = { mode: 'manual' as const, target: { release: 'v1.0.0' }, flags: NO_FLAGS };
    await expect(
      planPromotion(back, current({ target: { release: 'v1.1.0' } }), history, ciHistoryDouble([])),
    ).rejects.toMatchObject({ code: 'rollback' });
    await expect(planPromotion(back, current(), history, ciHistoryDouble([]))).rejects.toMatchObject({
      code: 'rollback',
    });
    const allowed = await planPromotion(
      { ...back, flags: { ...NO_FLAGS, allowRollback: true } },
      current(),
      history,
      ciHistoryDouble([]),
    );
    expect(allowed).toMatchObject({ action: 'write', flags: { allowRollback: true } });
  });

  it('refuses a release tag that does not exist (exit 2), so nothing is signed and no host tick starts failing', async () => {
    const request = { mode: 'manual' as const, target: { release: 'v9.9.9' }, flags: NO_FLAGS };
    await expect(planPromotion(request, current(), history, ciHistoryDouble([]))).rejects.toMatchObject({
      code: 'unknown-target',
      exitCode: 2,
    });
    await expect(planPromotion(request, { kind: 'none' }, history, ciHistoryDouble([]))).rejects.toMatchObject({
      code: 'unknown-target',
    });
  });

  it('refuses a commit that is not on main (exit 2), naming it', async () => {
    const stray = 'f'.repeat(40);
    const request = { mode: 'manual' as const, target: { commit: stray, images: pins(5) }, flags: NO_FLAGS };
    await expect(planPromotion(request, { kind: 'none' }, history, ciHistoryDouble([]))).rejects.toMatchObject({
      code: 'unknown-target',
      exitCode: 2,
      message: `Cannot promote commit ${stray}: it is not a commit of main in the platform repository (push it to main first)`,
    });
  });
});

describe('refresh', () => {
  it('re-signs the unchanged target and flags, marked as a refresh', async () => {
    const plan = await planPromotion({ mode: 'refresh' }, current({ freeze: true }), history, ciHistoryDouble([]));
    expect(plan).toMatchObject({ action: 'write', target: { commit: C(3) }, flags: { freeze: true }, refresh: true });
  });

  it('refuses to refresh an environment without a channel', async () => {
    await expect(
      planPromotion({ mode: 'refresh' }, { kind: 'none' }, history, ciHistoryDouble([])),
    ).rejects.toMatchObject({ code: 'unreadable-channel' });
  });
});
