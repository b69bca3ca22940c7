// A promotion that writes a channel records a GitHub deployment of the promoted target, naming who requested it.
import { describe, expect, it } from 'vitest';
import type { Channel } from '../../../scripts/lib/channel/index.ts';
import type { PromotionPlan, PromotionRequest } from '../../../scripts/lib/promotion/index.ts';
import { deploymentRecorderFromEnv, recordDeployment } from '../../../scripts/lib/promotion/record-deployment.ts';
import { deploymentsDouble } from '../../support/deployments-double.ts';

const REQUESTED = '4'.repeat(40);
const PROMOTED = '5'.repeat(40);
const images = { HEPHAESTUS_IMAGE_API: `ghcr.io/o/api@sha256:${'1'.repeat(64)}` };
const channel = (target: Channel['target']): Channel => ({
  schema: 2,
  environment: 'staging',
  version: 8,
  issued: 'x',
  expires: 'y',
  target,
  allowRollback: false,
  freeze: false,
  refreshDatabaseImage: false,
  refresh: false,
});
const write = (target: Channel['target'], refresh = false): PromotionPlan => ({
  action: 'write',
  target,
  flags: { allowRollback: false, freeze: false, refreshDatabaseImage: false },
  refresh,
  message: `promote ${PROMOTED.slice(0, 12)}`,
});
const context = {
  environment: 'staging',
  requestedBy: 'octocat',
  logUrl: 'https://github.com/acme/platform/actions/runs/42',
};
const auto: PromotionRequest = { mode: 'auto', commit: REQUESTED, images };

describe('recordDeployment', () => {
  it('records the promoted commit (not the requested one), who asked, and a success status linking the run', async () => {
    const github = deploymentsDouble();
    const target = { commit: PROMOTED, images };
    const id = await recordDeployment(
      github,
      auto,
      { plan: write(target), channel: channel(target), deployStateCommit: 'd'.repeat(40) },
      context,
    );
    expect(id).toBe(1);
    expect(github.calls).toEqual([
      {
        call: 'create',
        record: {
          ref: PROMOTED,
          environment: 'staging',
          description: expect.stringContaining('channel version 8'),
          payload: {
            requestedBy: 'octocat',
            requested: REQUESTED,
            channelVersion: 8,
            deployStateCommit: 'd'.repeat(40),
          },
          productionEnvironment: false,
        },
      },
      {
        call: 'setStatus',
        id: 1,
        environment: 'staging',
        status: {
          state: 'success',
          description: expect.stringMatching(/hosts apply it on their next tick/),
          logUrl: context.logUrl,
        },
      },
    ]);
  });

  it('records a release by its tag, as a production deployment for production', async () => {
    const github = deploymentsDouble();
    const target = { release: 'v1.2.3' };
    await recordDeployment(
      github,
      { mode: 'manual', target, flags: { allowRollback: false, freeze: false, refreshDatabaseImage: false } },
      { plan: write(target), channel: channel(target), deployStateCommit: 'd'.repeat(40) },
      { ...context, environment: 'production' },
    );
    expect(github.calls[0]).toMatchObject({
      call: 'create',
      record: {
        ref: 'v1.2.3',
        environment: 'production',
        productionEnvironment: true,
        payload: { requested: 'v1.2.3' },
      },
    });
  });

  it("with a version check: in progress while it waits, then the check's outcome as the final state", async () => {
    for (const ok of [true, false]) {
      const github = deploymentsDouble();
      const target = { release: 'v1.2.3' };
      await recordDeployment(
        github,
        { mode: 'manual', target, flags: { allowRollback: false, freeze: false, refreshDatabaseImage: false } },
        { plan: write(target), channel: channel(target), deployStateCommit: 'd'.repeat(40) },
        context,
        async () => ({
          ok,
          url: 'https://app.example/version',
          expected: 'v1.2.3',
          seen: ok ? '1.2.3' : '1.2.2',
          message: ok ? 'the webapp reports 1.2.3' : 'the webapp did not report v1.2.3 within 600 s',
        }),
      );
      expect(github.calls.filter((c) => c.call === 'setStatus').map((c) => c.status.state)).toEqual([
        'in_progress',
        ok ? 'success' : 'failure',
      ]);
      const last = github.calls.at(-1);
      expect(last?.call === 'setStatus' && last.status.description).toMatch(ok ? /reports 1\.2\.3/ : /did not report/);
    }
  });

  it('records nothing for a skipped automatic promotion or a daily refresh', async () => {
    const github = deploymentsDouble();
    await recordDeployment(
      github,
      auto,
      {
        plan: { action: 'skip', reason: 'frozen', message: 'frozen' },
        channel: undefined,
        deployStateCommit: undefined,
      },
      context,
    );
    const target = { commit: PROMOTED, images };
    await recordDeployment(
      github,
      { mode: 'refresh' },
      { plan: write(target, true), channel: channel(target), deployStateCommit: 'd'.repeat(40) },
      context,
    );
    expect(github.calls).toEqual([]);
  });

  it('outside GitHub Actions, refuses to start and names the missing variables', () => {
    expect(() => deploymentRecorderFromEnv({ GITHUB_REPOSITORY: 'acme/platform' })).toThrow(
      expect.objectContaining({
        code: 'usage',
        message: expect.stringMatching(/GITHUB_TOKEN[\s\S]*GITHUB_ACTOR|GITHUB_ACTOR[\s\S]*GITHUB_TOKEN/),
      }),
    );
  });
});
