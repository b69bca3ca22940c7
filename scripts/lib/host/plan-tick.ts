import { decide } from '../channel/decide.ts';
import type { DecideResult } from '../channel/decision.ts';
import type { Clock } from '../ports/clock.ts';
import type { Exec } from '../ports/exec.ts';
import { exec as realExec } from '../ports/exec.ts';
import type { TrustPolicy } from '../signing/trust-policy.ts';
import { appliedView } from './applied-record.ts';
import type { AppliedRecord } from './applied-record.ts';
import { evidenceFromReads } from './channel-evidence.ts';
import { channelFiles, identityAt } from './channel-unchanged.ts';
import type { BlobRead, DeployStateCheckout } from './deploy-state-cache.ts';
import {
  fetchBoundsFrom,
  fetchDeployStateRef,
  isAncestor,
  readBlobsWith,
  resolveCommit,
} from './deploy-state-cache.ts';
import { openObjectReader } from '../ports/git-object-reader.ts';
import { readFailedAttempt } from './failed-attempt.ts';
import type { HostConfig } from './host-config.ts';
import { readApplied } from './read-applied.ts';
import type { ChannelEvidence } from '../channel/decision.ts';

export interface PlanResult {
  readonly result: DecideResult;
  readonly deployStateCommit: string;
  readonly evidence: ChannelEvidence;
  readonly applied: AppliedRecord | undefined;
  readonly checkout: DeployStateCheckout;
}

/** Fetch, verify, decide: everything a tick does before it changes anything. The channel is verified on every call (rule 7: an unchanged request is verified again). */
export async function planTick(
  config: HostConfig,
  policy: () => Promise<TrustPolicy>,
  clock: Clock,
  run: Exec = realExec,
): Promise<PlanResult> {
  const root = config.HEPHAESTUS_ROOT;
  const applied = await readApplied(root);
  const { git, ref } = await fetchDeployStateRef(
    root,
    config.HEPHAESTUS_REPOSITORY,
    config.HEPHAESTUS_DEPLOY_BRANCH,
    fetchBoundsFrom(config),
    run,
  );
  const environment = config.HEPHAESTUS_CHANNEL;
  const files = channelFiles(environment);
  // One git process resolves the fetched commit and reads the channel and its bundle at it.
  const reader = openObjectReader(git);
  let commit: string;
  let reads: BlobRead[];
  try {
    commit = await resolveCommit(reader, ref);
    reads = await readBlobsWith(reader, commit, files);
  } finally {
    await reader.close();
  }
  const checkout: DeployStateCheckout = { git, commit };
  const view = applied === undefined ? undefined : appliedView(applied);
  const evidence = evidenceFromReads(reads, files[0], commit, await policy());
  const descendsFromAccepted =
    view === undefined || view.channelCommit === commit || (await isAncestor(git, view.channelCommit, commit));
  const legacyAppliedIdentity =
    view !== undefined && view.channelIdentity === undefined
      ? await identityAt(git, view.channelCommit, environment)
      : undefined;
  // Rule 6 for commits: a commit the running one does not lead to is an older or another line, whichever form runs now.
  let targetDescendsFromRunning: boolean | undefined;
  if (
    evidence.ok &&
    'commit' in evidence.channel.target &&
    view?.commit !== undefined &&
    view.commit !== evidence.channel.target.commit
  ) {
    targetDescendsFromRunning = await isAncestor(git, view.commit, evidence.channel.target.commit);
  }
  const failed = await readFailedAttempt(root);
  const result = decide({
    policy: { environment, acceptSchema1: config.HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL, now: clock.now() },
    evidence,
    deployState: { commit, descendsFromAccepted },
    applied: view,
    legacyAppliedIdentity,
    targetDescendsFromRunning,
    failedIdentity: failed?.channelIdentity,
  });
  return { result, deployStateCommit: commit, evidence, applied, checkout };
}
