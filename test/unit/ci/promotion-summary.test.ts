import { describe, expect, it } from 'vitest';
import {
  failedPromotionSummary,
  parsePromotionOutput,
  promotionSummary,
} from '../../../scripts/lib/ci/promotion-summary.ts';

const requested = 'a'.repeat(40);
const promoted = 'b'.repeat(40);
const written = {
  action: 'write',
  reason: null,
  message: `promote ${promoted.slice(0, 12)} (most recent successful CI run of main, descends from the requested ${requested.slice(0, 12)})`,
  environment: 'staging',
  version: 7,
  expires: '2026-12-07T10:00:00Z',
  target: { commit: promoted },
  deployStateCommit: 'c'.repeat(40),
};

describe('promotion job summary', () => {
  it('names the requested and the promoted commit, the channel version and the deploy-state commit', () => {
    const text = promotionSummary(parsePromotionOutput(JSON.stringify(written), 'promotion.json'), requested);
    expect(text).toContain(`| requested | \`${requested}\` |`);
    expect(text).toContain(`| promoted | \`${promoted}\` |`);
    expect(text).toContain('| channel version | `7` |');
    expect(text).toContain(`| deploy-state commit | \`${'c'.repeat(40)}\` |`);
  });

  it('names the boundary: host metrics are the record, a matching version is not readiness', () => {
    const text = promotionSummary(
      parsePromotionOutput(
        JSON.stringify({ ...written, action: 'skip', reason: 'frozen', version: null, target: null, expires: null }),
        'p.json',
      ),
      requested,
    );
    expect(text).toContain('left alone (frozen)');
    expect(text).toMatch(/does not fetch host metrics/);
    expect(text).toMatch(/does not establish server, worker, webhook, database, NATS, or integration readiness/);
  });

  it('says whether the webapp reported the version, a failed check included, and keeps the boundary', () => {
    const failed = {
      ...written,
      versionCheck: { url: 'https://app.example/version', expected: promoted, seen: 'old', ok: false },
    };
    const text = promotionSummary(parsePromotionOutput(JSON.stringify(failed), 'p.json'), requested);
    expect(text).toContain('| webapp version | `failed: reported old, expected ' + promoted + '` |');
    expect(text).toMatch(/does not establish server, worker/);
    const ok = { ...failed, versionCheck: { ...failed.versionCheck, seen: promoted, ok: true } };
    expect(promotionSummary(parsePromotionOutput(JSON.stringify(ok), 'p.json'), requested)).toContain(
      `| webapp version | \`reported ${promoted}\` |`,
    );
  });

  it('a promotion that failed before it wrote its output still gets a summary naming the request and the boundary', () => {
    const text = failedPromotionSummary(requested, 'promotion.json is empty');
    expect(text).toMatch(/^## Promotion failed/);
    expect(text).toContain(`| requested | \`${requested}\` |`);
    expect(text).toContain('promotion.json is empty');
    expect(text).toMatch(/does not fetch host metrics/);
  });

  it('refuses output that is not promote.ts --json, naming the file and field', () => {
    expect(() => parsePromotionOutput('{"action":"maybe"}', 'promotion.json')).toThrow(
      expect.objectContaining({ code: 'promotion-output', message: expect.stringMatching(/promotion\.json: action/) }),
    );
    expect(() => parsePromotionOutput('', 'promotion.json')).toThrow(/promotion\.json.*not JSON/);
  });
});
