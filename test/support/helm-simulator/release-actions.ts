// `helm rollback` and `helm uninstall` over the Secrets history, following helm/helm@e9b85e4 pkg/action/rollback.go
// (prepareRollback: a new revision with the target's chart, values and manifest, "Rollback to N", rollback_revision;
// Create with --history-max; performRollback: a failed update marks the new revision failed and the current one
// superseded, a failed wait marks the new revision failed "Release ... failed: ..."; every deployed revision superseded
// on success) and pkg/action/uninstall.go (the last revision uninstalling "Deletion in progress (or silently failed)",
// owned objects deleted, then every revision purged without --keep-history).
import type { HelmArgs } from './args.ts';
import { applyObjects, deleteOwned, manifestObjects } from './apply-objects.ts';
import { checkFault } from './faults.ts';
import { HelmFailure } from './helm-failure.ts';
import type { Release } from './release-store.ts';
import { now } from './session.ts';
import type { Session } from './session.ts';
import { waitReady } from './wait-ready.ts';

const SYSTEM_LABELS = new Set(['name', 'owner', 'status', 'version', 'createdAt', 'modifiedAt']);
const customLabels = (r: Release) =>
  Object.fromEntries(Object.entries(r.labels ?? {}).filter(([k]) => !SYSTEM_LABELS.has(k)));

export async function rollback(s: Session, name: string, target: number, args: HelmArgs): Promise<Release> {
  if (target < 0) throw new HelmFailure('invalid release revision');
  s.store.maxHistory = args.historyMax;
  const history = await s.store.history(name);
  const current = history.at(-1);
  if (current === undefined) throw new HelmFailure('release: not found');
  const previousVersion = target === 0 ? current.version - 1 : target;
  const previous = history.find((r) => r.version === previousVersion);
  if (previous === undefined) throw new HelmFailure(`release has no ${previousVersion} version`);
  const release: Release = {
    name,
    info: {
      first_deployed: current.info.first_deployed,
      last_deployed: now(),
      description: `Rollback to ${previousVersion}`,
      status: 'pending-rollback',
      rollback_revision: previousVersion,
      ...(previous.info.notes === undefined ? {} : { notes: previous.info.notes }),
    },
    chart: previous.chart,
    ...(previous.config === undefined ? {} : { config: previous.config }),
    ...(previous.manifest === undefined ? {} : { manifest: previous.manifest }),
    version: current.version + 1,
    namespace: current.namespace,
    apply_method: previous.apply_method ?? 'csa',
    labels: customLabels(previous),
  };
  await s.store.create(release);
  const objects = manifestObjects(previous.manifest);
  try {
    await applyObjects(s.kube, name, s.namespace, objects, current.manifest);
  } catch (error) {
    const message = `Rollback "${name}" failed: ${(error as Error).message}`;
    current.info.status = 'superseded';
    release.info.status = 'failed';
    release.info.description = message;
    await s.store.update(current);
    await s.store.update(release);
    throw new HelmFailure((error as Error).message);
  }
  checkFault('rollback');
  if (args.wait === 'watcher') {
    try {
      await waitReady(s.kube, s.namespace, objects, args.flags.has('--wait-for-jobs'), args.timeoutMs);
    } catch (error) {
      release.info.status = 'failed';
      release.info.description = `Release "${name}" failed: ${(error as Error).message}`;
      await s.store.update(current);
      await s.store.update(release);
      throw new HelmFailure(`release ${name} failed: ${(error as Error).message}`);
    }
  }
  for (const r of await s.store.history(name)) {
    if (r.info.status !== 'deployed') continue;
    r.info.status = 'superseded';
    await s.store.update(r);
  }
  release.info.status = 'deployed';
  await s.store.update(release);
  return release;
}

/** `helm uninstall NAME` (no --keep-history): the objects this release owns, then every revision. */
export async function uninstall(s: Session, name: string, _args: HelmArgs): Promise<string[]> {
  const history = await s.store.history(name);
  const last = history.at(-1);
  if (last === undefined) throw new HelmFailure(`uninstall: Release not loaded: ${name}: release: not found`);
  let kept: string[] = [];
  if (last.info.status !== 'uninstalled') {
    last.info.status = 'uninstalling';
    last.info.deleted = now();
    last.info.description = 'Deletion in progress (or silently failed)';
    await s.store.update(last);
    kept = await deleteOwned(s.kube, name, s.namespace, last.manifest);
    checkFault('uninstall');
  }
  for (const r of history) await s.store.delete(name, r.version);
  return kept;
}
