import type { Channel, ChannelTarget } from '../channel/channel-schema.ts';
import { compareReleases } from '../channel/compare-releases.ts';
import type { CiHistory } from './ci-history.ts';
import { PromotionError } from './promotion-error.ts';

/** What deploy-state holds for the environment now. */
export type CurrentChannel =
  | { readonly kind: 'none' }
  | { readonly kind: 'ok'; readonly channel: Channel }
  | { readonly kind: 'unreadable'; readonly message: string }
  /** Present but not signed by the promotion trust (or signed for another environment): never read, never replaced. */
  | { readonly kind: 'unverified'; readonly file: string; readonly message: string };

export interface PromotionFlags {
  readonly allowRollback: boolean;
  readonly freeze: boolean;
  readonly refreshDatabaseImage: boolean;
}

export type PromotionRequest =
  | { readonly mode: 'manual'; readonly target: ChannelTarget; readonly flags: PromotionFlags }
  /** After a successful CI run of `commit` on main; `images` are that run's pins if it passed them. */
  | { readonly mode: 'auto'; readonly commit: string; readonly images: Readonly<Record<string, string>> | undefined }
  | { readonly mode: 'refresh' };

/** Git history of the platform repository; each throws PromotionError('history') when it cannot answer. */
export interface History {
  isAncestor(ancestor: string, descendant: string): Promise<boolean>;
  /** The tag's commit; PromotionError('unknown-target', exit 2) when there is no such tag. */
  releaseCommit(tag: string): Promise<string>;
  /** Whether the commit exists and is on main. */
  onMain(commit: string): Promise<boolean>;
}

export type PromotionPlan =
  | {
      readonly action: 'write';
      readonly target: ChannelTarget;
      readonly flags: PromotionFlags;
      readonly refresh: boolean;
      readonly message: string;
    }
  | {
      readonly action: 'skip';
      readonly reason: 'frozen' | 'already-promoted' | 'older-build';
      readonly message: string;
    };

/** The one environment that follows main (spec: "Only Staging follows main, so only Staging can be frozen"). */
export const FOLLOWING_ENVIRONMENT = 'staging';

const NO_FLAGS: PromotionFlags = { allowRollback: false, freeze: false, refreshDatabaseImage: false };

function describe(target: ChannelTarget): string {
  return 'release' in target ? target.release : target.commit.slice(0, 12);
}

/** The commit a target runs: a commit itself, or the release tag's commit. */
async function commitOf(target: ChannelTarget, history: History): Promise<string> {
  return 'commit' in target ? target.commit : history.releaseCommit(target.release);
}

/** True when `next` would move hosts back from `current` (hosts refuse that without allowRollback). */
async function isRollback(next: ChannelTarget, current: ChannelTarget, history: History): Promise<boolean> {
  if ('release' in next && 'release' in current) return compareReleases(next.release, current.release) < 0;
  const [to, from] = [await commitOf(next, history), await commitOf(current, history)];
  return to !== from && (await history.isAncestor(to, from));
}

/** A channel naming a tag or commit that does not exist would fail every host's tick until the next promotion. */
async function requireTarget(target: ChannelTarget, history: History): Promise<void> {
  if ('release' in target) {
    await history.releaseCommit(target.release);
    return;
  }
  if (!(await history.onMain(target.commit))) {
    throw new PromotionError(
      'unknown-target',
      `Cannot promote commit ${target.commit}: it is not a commit of main in the platform repository (push it to main first)`,
      { exitCode: 2, details: { commit: target.commit } },
    );
  }
}

function requireReadable(current: CurrentChannel, environment: string): Channel | undefined {
  // A channel nobody trusted signed could name any target or flags: deciding from it, or signing its successor, would
  // make promotion a signing oracle for anyone who can push deploy-state.
  if (current.kind === 'unverified')
    throw new PromotionError(
      'unverified-channel',
      `Cannot promote "${environment}": ${current.file} on deploy-state does not verify with the promotion trust (${current.message}); nothing was signed. Restore the last signed channel on deploy-state by hand, or, during a key rotation, trust the old and the new key in HEPHAESTUS_PROMOTE_KEYS`,
      { details: { file: current.file } },
    );
  // An unreadable channel could hide a freeze or a higher version: stop rather than overwrite it.
  if (current.kind === 'unreadable')
    throw new PromotionError(
      'unreadable-channel',
      `Cannot promote: the current channel is unreadable (${current.message}); fix or remove it by hand`,
    );
  // Stryker disable next-line ConditionalExpression: a 'none' channel has no `channel` field, so both branches give undefined
  return current.kind === 'ok' ? current.channel : undefined;
}

type NewerBuild =
  | { readonly kind: 'moved'; readonly commit: string; readonly images: Readonly<Record<string, string>> }
  | { readonly kind: 'stay' }
  | { readonly kind: 'lookup-failed'; readonly reason: string };

/** The single most recent successful CI run of main, taken only when it strictly descends from `requested`; a failed CI lookup keeps `requested`. */
async function newerSuccessfulBuild(requested: string, history: History, ci: CiHistory): Promise<NewerBuild> {
  let latest: { commit: string; at: number } | undefined;
  try {
    for (const build of await ci.successfulMainBuilds()) {
      const at = Date.parse(build.completedAt);
      if (latest === undefined || at > latest.at) latest = { commit: build.commit, at };
    }
  } catch (error) {
    return { kind: 'lookup-failed', reason: (error as Error).message };
  }
  // Stryker disable next-line ObjectLiteral,StringLiteral: every kind but moved and lookup-failed is a stay
  if (latest === undefined || latest.commit === requested) return { kind: 'stay' };
  // A failed comparison is a history failure (stop), not a failed lookup: isAncestor throws PromotionError('history').
  // Stryker disable next-line ObjectLiteral,StringLiteral: every kind but moved and lookup-failed is a stay
  if (!(await history.isAncestor(requested, latest.commit))) return { kind: 'stay' };
  try {
    return { kind: 'moved', commit: latest.commit, images: await ci.imagesFor(latest.commit) };
  } catch (error) {
    return { kind: 'lookup-failed', reason: (error as Error).message };
  }
}

/** The seed's promotion rules: manual, automatic (after CI on main) and the daily refresh. */
export async function planPromotion(
  request: PromotionRequest,
  current: CurrentChannel,
  history: History,
  ci: CiHistory,
  environment: string,
): Promise<PromotionPlan> {
  const channel = requireReadable(current, environment);
  if (request.mode === 'refresh') {
    if (channel === undefined)
      throw new PromotionError('unreadable-channel', 'Cannot refresh: the environment has no channel yet');
    const flags = {
      allowRollback: channel.allowRollback,
      freeze: channel.freeze,
      refreshDatabaseImage: channel.refreshDatabaseImage,
    };
    return {
      action: 'write',
      target: channel.target,
      flags,
      refresh: true,
      message: `refresh ${describe(channel.target)}`,
    };
  }
  if (request.mode === 'manual') {
    if (request.flags.freeze && environment !== FOLLOWING_ENVIRONMENT) {
      throw new PromotionError(
        'freeze-not-following',
        `Cannot freeze "${environment}": only ${FOLLOWING_ENVIRONMENT} follows main, so only ${FOLLOWING_ENVIRONMENT} can be frozen`,
        { exitCode: 2, details: { environment } },
      );
    }
    await requireTarget(request.target, history);
    if (
      channel !== undefined &&
      !request.flags.allowRollback &&
      (await isRollback(request.target, channel.target, history))
    ) {
      throw new PromotionError(
        'rollback',
        `Cannot promote ${describe(request.target)}: it is older than the current ${describe(channel.target)}; pass --allow-rollback`,
        { exitCode: 2 },
      );
    }
    return {
      action: 'write',
      target: request.target,
      flags: request.flags,
      refresh: false,
      message: `promote ${describe(request.target)}`,
    };
  }
  // Continuous staging starts from a channel a person chose, never from an empty deploy-state.
  if (channel === undefined)
    throw new PromotionError(
      'no-initial-channel',
      `Cannot promote ${request.commit.slice(0, 12)} automatically: the environment has no channel yet. Establish the initial channel with a manual promotion before enabling continuous staging`,
    );
  if (channel.freeze)
    return {
      action: 'skip',
      reason: 'frozen',
      message: `channel is frozen at ${describe(channel.target)}; automatic promotion leaves it alone`,
    };
  const running = await commitOf(channel.target, history);
  if (running === request.commit)
    return {
      action: 'skip',
      reason: 'already-promoted',
      message: `${request.commit.slice(0, 12)} is already promoted`,
    };
  if (await history.isAncestor(request.commit, running))
    return {
      action: 'skip',
      reason: 'older-build',
      message: `${request.commit.slice(0, 12)} is older than the promoted ${describe(channel.target)}`,
    };
  // Only a promotion that would advance the channel looks for a newer build; a strict descendant advances it too.
  const newer = await newerSuccessfulBuild(request.commit, history, ci);
  // Stryker disable next-line ConditionalExpression: candidate is read only when newer.kind is moved
  const candidate = newer.kind === 'moved' ? newer.commit : request.commit;
  if (newer.kind === 'moved') {
    const moved = ` (most recent successful CI run of main, descends from the requested ${request.commit.slice(0, 12)})`;
    return {
      action: 'write',
      target: { commit: candidate, images: newer.images },
      flags: NO_FLAGS,
      refresh: false,
      message: `promote ${candidate.slice(0, 12)}${moved}`,
    };
  }
  const images = request.images ?? (await ci.imagesFor(request.commit));
  const note =
    newer.kind === 'lookup-failed' ? ` (CI lookup failed, promoting the requested commit: ${newer.reason})` : '';
  return {
    action: 'write',
    target: { commit: request.commit, images },
    flags: NO_FLAGS,
    refresh: false,
    message: `promote ${request.commit.slice(0, 12)}${note}`,
  };
}
