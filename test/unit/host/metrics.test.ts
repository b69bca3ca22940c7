import { describe, expect, it } from 'vitest';
import { escapeLabel, formatMetrics, lastSuccessFrom } from '../../../scripts/lib/host/metrics.ts';

const now = new Date('2026-11-29T12:00:00Z');

describe('formatMetrics()', () => {
  it('writes the spec metrics with escaped labels', () => {
    const text = formatMetrics({
      channel: 'stag"ing',
      release: 'v1.2.3',
      channelCommit: 'a'.repeat(40),
      success: true,
      now,
      lastSuccess: now,
      toolingPending: false,
      freeBytes: 1024,
      minFreeBytes: 10 * 1024 ** 3,
      channelVersion: 17,
      channelExpiry: new Date('2026-12-06T10:00:00Z'),
    });
    expect(text).toContain(
      `hephaestus_deploy_info{channel="stag\\"ing",release="v1.2.3",channel_commit="${'a'.repeat(40)}"} 1\n`,
    );
    expect(text).toContain('hephaestus_deploy_reconcile_success 1\n');
    expect(text).toContain(`hephaestus_deploy_reconcile_timestamp_seconds ${now.getTime() / 1000}\n`);
    expect(text).toContain('hephaestus_deploy_tooling_pending 0\n');
    expect(text).toContain('hephaestus_deploy_free_bytes 1024\n');
    expect(text).toContain(`hephaestus_deploy_min_free_bytes ${10 * 1024 ** 3}\n`);
    expect(text).toContain('hephaestus_deploy_channel_version 17\n');
    expect(text).toContain(
      `hephaestus_deploy_channel_expiry_timestamp_seconds ${Date.parse('2026-12-06T10:00:00Z') / 1000}\n`,
    );
  });
  it('a failure keeps the last success time of the previous file and reports success 0', () => {
    const earlier = formatMetrics({
      channel: 's',
      release: 'v1',
      channelCommit: undefined,
      success: true,
      now: new Date('2026-11-28T00:00:00Z'),
      lastSuccess: new Date('2026-11-28T00:00:00Z'),
      toolingPending: false,
      freeBytes: undefined,
      minFreeBytes: 0,
      channelVersion: undefined,
      channelExpiry: undefined,
    });
    const kept = lastSuccessFrom(earlier);
    const text = formatMetrics({
      channel: 's',
      release: 'v1',
      channelCommit: undefined,
      success: false,
      now,
      lastSuccess: kept,
      toolingPending: false,
      freeBytes: undefined,
      minFreeBytes: 0,
      channelVersion: undefined,
      channelExpiry: undefined,
    });
    expect(text).toContain('hephaestus_deploy_reconcile_success 0\n');
    expect(text).toContain(
      `hephaestus_deploy_last_success_timestamp_seconds ${Date.parse('2026-11-28T00:00:00Z') / 1000}\n`,
    );
    expect(text).not.toContain('hephaestus_deploy_channel_version');
  });
  it('escapes backslashes and newlines in label values', () => {
    expect(escapeLabel('a\\b\nc"')).toBe('a\\\\b\\nc\\"');
  });
});
