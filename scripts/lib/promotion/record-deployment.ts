import { z } from 'zod';
import { UsageError } from '../errors/toolkit-error.ts';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { gitHubDeployments } from './github-deployments.ts';
import type { PromotionRequest } from './plan-promotion.ts';
import type { Deployments } from './deployments.ts';
import type { PromotionOutcome } from './run-promotion.ts';
import type { VersionCheckResult } from './version-check.ts';

export interface DeploymentContext {
  readonly environment: string;
  /** GITHUB_TRIGGERING_ACTOR or GITHUB_ACTOR: who asked for the promotion. */
  readonly requestedBy: string;
  readonly logUrl: string | undefined;
}

function requestedTarget(request: PromotionRequest): string {
  if (request.mode === 'auto') return request.commit;
  if (request.mode === 'manual') return 'release' in request.target ? request.target.release : request.target.commit;
  return 'refresh';
}

/**
 * Records a GitHub deployment of the target a promotion wrote (the promoted one, which automatic promotion may have moved
 * past the requested one). A skipped promotion and a daily refresh record nothing. With a version check the status is
 * `in_progress` while it waits, then `success` or `failure` as the public webapp reported the version or not; without
 * one it says only that the channel was signed. Host metrics stay the record of what each host runs.
 */
export async function recordDeployment(
  deployments: Deployments,
  request: PromotionRequest,
  outcome: PromotionOutcome,
  context: DeploymentContext,
  check?: () => Promise<VersionCheckResult>,
): Promise<number | undefined> {
  const { plan, channel } = outcome;
  if (plan.action === 'skip' || plan.refresh || channel === undefined) return undefined;
  const ref = 'release' in channel.target ? channel.target.release : channel.target.commit;
  const id = await deployments.create({
    ref,
    environment: context.environment,
    description: `${plan.message} (channel version ${channel.version})`.slice(0, 140),
    payload: {
      requestedBy: context.requestedBy,
      requested: requestedTarget(request),
      channelVersion: channel.version ?? 0,
      deployStateCommit: outcome.deployStateCommit ?? '',
    },
    productionEnvironment: context.environment === 'production',
  });
  const signed = `channel version ${channel.version} signed; hosts apply it on their next tick`;
  if (check === undefined) {
    await deployments.setStatus(id, context.environment, {
      state: 'success',
      description: signed,
      logUrl: context.logUrl,
    });
    return id;
  }
  await deployments.setStatus(id, context.environment, {
    state: 'in_progress',
    description: `${signed}; waiting for the webapp to report ${ref}`.slice(0, 140),
    logUrl: context.logUrl,
  });
  const result = await check();
  await deployments.setStatus(id, context.environment, {
    state: result.ok ? 'success' : 'failure',
    description: result.message.slice(0, 140),
    logUrl: context.logUrl,
  });
  return id;
}

const actionsEnv = z.object({
  GITHUB_REPOSITORY: z.string().regex(/^[^/]+\/[^/]+$/, 'expected owner/name'),
  GITHUB_TOKEN: z.string().min(1),
  GITHUB_API_URL: z.url().optional(),
  GITHUB_ACTOR: z.string().min(1),
  GITHUB_TRIGGERING_ACTOR: z.string().min(1).optional(),
  GITHUB_SERVER_URL: z.url().optional(),
  GITHUB_RUN_ID: z.string().regex(/^\d+$/).optional(),
});

/** The deployment recorder of a promotion run in GitHub Actions (`deployments: write`), from the runner's environment. */
export function deploymentRecorderFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): (
  request: PromotionRequest,
  outcome: PromotionOutcome,
  environment: string,
  check?: () => Promise<VersionCheckResult>,
) => Promise<number | undefined> {
  const parsed = actionsEnv.safeParse(env);
  if (!parsed.success)
    throw new UsageError(
      `Cannot record deployments: run in GitHub Actions with GITHUB_TOKEN set\n${describeZodIssues('environment', {}, parsed.error).join('\n')}`,
    );
  const e = parsed.data;
  const deployments = gitHubDeployments({
    repository: e.GITHUB_REPOSITORY,
    token: e.GITHUB_TOKEN,
    apiUrl: e.GITHUB_API_URL,
  });
  const logUrl =
    e.GITHUB_RUN_ID === undefined
      ? undefined
      : `${e.GITHUB_SERVER_URL ?? 'https://github.com'}/${e.GITHUB_REPOSITORY}/actions/runs/${e.GITHUB_RUN_ID}`;
  return (request, outcome, environment, check) =>
    recordDeployment(
      deployments,
      request,
      outcome,
      { environment, requestedBy: e.GITHUB_TRIGGERING_ACTOR ?? e.GITHUB_ACTOR, logUrl },
      check,
    );
}
