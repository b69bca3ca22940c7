import type { Channel } from '../channel/channel-schema.ts';
import { serializeChannel } from '../channel/parse-channel.ts';
import type { Clock } from '../ports/clock.ts';
import type { Exec } from '../ports/exec.ts';
import type { TrustPolicy } from '../signing/trust-policy.ts';
import type { CiHistory } from './ci-history.ts';
import { commitFiles, gitHistory, openDeployStateRepo, pushCommit, readCurrentChannel } from './deploy-state-repo.ts';
import { planPromotion } from './plan-promotion.ts';
import type { PromotionPlan, PromotionRequest } from './plan-promotion.ts';
import { PromotionError } from './promotion-error.ts';

export interface PromotionOptions {
  readonly repository: string;
  readonly branch: string;
  readonly environment: string;
  readonly request: PromotionRequest;
  /** Signs the exact channel bytes; returns the bundle JSON text. */
  readonly sign: (bytes: Buffer) => Promise<string>;
  /** Who may have signed the current channel: it is verified with this before anything is decided from it. */
  readonly trust: TrustPolicy;
  readonly expiresInMs: number;
  readonly clock: Clock;
  readonly ci: CiHistory;
  /** Refuses a commit target whose first-party images lack provenance; runs before anything is signed. */
  readonly verifyProvenance?: (commit: string, images: Readonly<Record<string, string>>) => Promise<void>;
  readonly run?: Exec;
  /** Called once per step, for the journal. */
  readonly log?: (step: string, fields: Record<string, unknown>) => void;
}

export interface PromotionOutcome {
  readonly plan: PromotionPlan;
  readonly channel: Channel | undefined;
  readonly deployStateCommit: string | undefined;
}

const ATTEMPTS = 3;

function toSecond(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** Fetch, decide by the promotion rules, write + sign + commit + push; a concurrent push makes it start over (at most 3 times). */
export async function runPromotion(options: PromotionOptions): Promise<PromotionOutcome> {
  const log = options.log ?? (() => {});
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const repo = await openDeployStateRepo(options.repository, options.branch, options.run);
    try {
      log('fetch', { repository: options.repository, head: repo.head ?? null, attempt });
      const current = await readCurrentChannel(repo, options.environment, options.trust);
      const plan = await planPromotion(options.request, current, gitHistory(repo), options.ci, options.environment);
      log('plan', { action: plan.action, message: plan.message });
      if (plan.action === 'skip') return { plan, channel: undefined, deployStateCommit: repo.head };
      if (options.verifyProvenance !== undefined && 'commit' in plan.target && !plan.refresh) {
        await options.verifyProvenance(plan.target.commit, plan.target.images);
        log('provenance', { commit: plan.target.commit, images: Object.keys(plan.target.images).length });
      }
      const now = options.clock.now();
      const previous = current.kind === 'ok' ? (current.channel.version ?? 0) : 0;
      const channel: Channel = {
        schema: 2,
        environment: options.environment,
        version: previous + 1,
        issued: toSecond(now),
        expires: toSecond(new Date(now.getTime() + options.expiresInMs)),
        target: plan.target,
        ...plan.flags,
        refresh: plan.refresh,
      };
      const bytes = Buffer.from(serializeChannel(channel));
      const bundle = await options.sign(bytes);
      log('sign', { environment: options.environment, version: channel.version });
      const file = `channels/${options.environment}.json`;
      const message = `${options.environment}: ${plan.message} (channel version ${channel.version})\n`;
      const commit = await commitFiles(
        repo,
        [
          { path: file, bytes },
          { path: `${file}.sigstore.json`, bytes: bundle },
        ],
        message,
      );
      if ((await pushCommit(repo, commit)) === 'pushed') {
        log('push', { commit, branch: options.branch });
        return { plan, channel, deployStateCommit: commit };
      }
      log('retry', { reason: 'deploy-state moved during promotion', attempt });
    } finally {
      await repo.close();
    }
  }
  throw new PromotionError(
    'conflict',
    `Cannot promote "${options.environment}": deploy-state moved during ${ATTEMPTS} attempts`,
  );
}
