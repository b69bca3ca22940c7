// `helm upgrade --install` over the Secrets history, following helm/helm@e9b85e4: pkg/cmd/upgrade.go (install when there
// is no history or the last revision is uninstalled), pkg/action/install.go (RunWithContext, performInstall,
// failRelease: uninstall with --rollback-on-failure) and pkg/action/upgrade.go (prepareUpgrade: pending refused, no
// deployed revision refused unless the last one failed or was superseded; performUpgrade: ownership of new objects,
// Create with --history-max; releasingUpgrade; failRelease: roll back to the newest deployed or superseded revision).
import type { HelmArgs } from './args.ts';
import { applyObjects, checkNewObjects, manifestObjects, objectKey } from './apply-objects.ts';
import { loadChart, render, userValues } from './chart-source.ts';
import { checkFault, readDelay } from './faults.ts';
import { HelmFailure } from './helm-failure.ts';
import { isPending } from './release-store.ts';
import type { Release } from './release-store.ts';
import { rollback, uninstall } from './release-actions.ts';
import { now } from './session.ts';
import type { Session } from './session.ts';
import { waitReady } from './wait-ready.ts';

/** Helm's default is hookOnly (no wait for resources); --rollback-on-failure turns it into watcher. */
const waits = (args: HelmArgs) =>
  args.wait === 'watcher' || (args.wait === undefined && args.flags.has('--rollback-on-failure'));

export interface Outcome {
  readonly release: Release;
  readonly installed: boolean;
}

/** `helm upgrade [--install] NAME CHART`. */
export async function upgradeInstall(s: Session, name: string, chartPath: string, args: HelmArgs): Promise<Outcome> {
  const history = await s.store.history(name);
  if (args.flags.has('--install') && (history.length === 0 || history.at(-1)?.info.status === 'uninstalled'))
    return { release: await install(s, name, chartPath, args, history), installed: true };
  try {
    return { release: await upgrade(s, name, chartPath, args, history), installed: false };
  } catch (error) {
    throw new HelmFailure(`UPGRADE FAILED: ${(error as Error).message}`);
  }
}

async function install(
  s: Session,
  name: string,
  chartPath: string,
  args: HelmArgs,
  history: Release[],
): Promise<Release> {
  const chart = loadChart(chartPath);
  const config = userValues(args);
  const last = history.at(-1);
  const version = (last?.version ?? 0) + 1; // replaceRelease: after an uninstalled --keep-history release
  const rendered = render(chart, config, { name, namespace: s.namespace, revision: version });
  const time = now();
  const release: Release = {
    name,
    info: {
      first_deployed: time,
      last_deployed: time,
      description: 'Initial install underway',
      status: 'pending-install',
    },
    chart: { metadata: chart.metadata, values: chart.defaults },
    ...(Object.keys(config).length > 0 ? { config } : {}),
    manifest: rendered.manifest,
    version,
    namespace: s.namespace,
    apply_method: 'ssa',
  };
  try {
    await checkNewObjects(s.kube, rendered.objects, name, s.namespace);
  } catch (error) {
    throw new HelmFailure(`INSTALLATION FAILED: unable to continue with install: ${(error as Error).message}`);
  }
  if (last !== undefined && last.info.status !== 'failed') {
    last.info.status = 'superseded';
    last.info.description = 'superseded by new release';
    await s.store.update(last);
  }
  s.store.maxHistory = 0; // the install action never sets Storage.MaxHistory
  await s.store.create(release).catch((error: Error) => {
    throw new HelmFailure(`INSTALLATION FAILED: ${error.message}`);
  });
  try {
    await applyObjects(s.kube, name, s.namespace, rendered.objects, undefined);
    checkFault('install');
    if (waits(args))
      await waitReady(s.kube, s.namespace, rendered.objects, args.flags.has('--wait-for-jobs'), args.timeoutMs);
  } catch (error) {
    const message = (error as Error).message;
    release.info.status = 'failed';
    release.info.description = `Release "${name}" failed: ${message}`;
    if (!args.flags.has('--rollback-on-failure')) {
      await s.store.update(release);
      throw new HelmFailure(`INSTALLATION FAILED: ${message}`);
    }
    await uninstall(s, name, args);
    throw new HelmFailure(
      `INSTALLATION FAILED: release ${name} failed, and has been uninstalled due to rollback-on-failure being set: ${message}`,
    );
  }
  release.info.status = 'deployed';
  release.info.description = 'Install complete';
  await s.store.update(release);
  return release;
}

async function upgrade(
  s: Session,
  name: string,
  chartPath: string,
  args: HelmArgs,
  history: Release[],
): Promise<Release> {
  const last = history.at(-1);
  if (last === undefined) throw new Error(`"${name}" has no deployed releases`);
  // The pessimistic lock: a pending last revision refuses, a revision created meanwhile fails Create.
  if (isPending(last.info.status)) throw new Error('another operation (install/upgrade/rollback) is in progress');
  let current = last.info.status === 'deployed' ? last : history.filter((r) => r.info.status === 'deployed').at(-1);
  if (current === undefined) {
    if (last.info.status !== 'failed' && last.info.status !== 'superseded')
      throw new Error(`"${name}" has no deployed releases`);
    current = last;
  }
  const chart = loadChart(chartPath);
  const config = userValues(args);
  const version = last.version + 1;
  const rendered = render(chart, config, { name, namespace: current.namespace, revision: version });
  const release: Release = {
    name,
    info: {
      first_deployed: current.info.first_deployed,
      last_deployed: now(),
      description: 'Preparing upgrade',
      status: 'pending-upgrade',
    },
    chart: { metadata: chart.metadata, values: chart.defaults },
    ...(Object.keys(config).length > 0 ? { config } : {}),
    manifest: rendered.manifest,
    version,
    namespace: current.namespace,
    apply_method: last.apply_method ?? 'csa',
  };
  const existing = new Set(manifestObjects(current.manifest).map((o) => objectKey(o, s.namespace)));
  const created = rendered.objects.filter((o) => !existing.has(objectKey(o, s.namespace)));
  try {
    await checkNewObjects(s.kube, created, name, s.namespace);
  } catch (error) {
    throw new Error(`unable to continue with update: ${(error as Error).message}`);
  }
  await readDelay();
  s.store.maxHistory = args.historyMax;
  await s.store.create(release);
  try {
    await applyObjects(s.kube, name, s.namespace, rendered.objects, current.manifest);
    checkFault('upgrade');
    if (waits(args))
      await waitReady(s.kube, s.namespace, rendered.objects, args.flags.has('--wait-for-jobs'), args.timeoutMs);
  } catch (error) {
    await s.store.update(current);
    throw await failUpgrade(s, release, args, (error as Error).message);
  }
  current.info.status = 'superseded';
  await s.store.update(current);
  release.info.status = 'deployed';
  release.info.description = 'Upgrade complete';
  await s.store.update(release);
  return release;
}

/** upgrade.go failRelease: the revision failed; with --rollback-on-failure, roll back (MaxHistory 0, as NewRollback). */
async function failUpgrade(s: Session, release: Release, args: HelmArgs, message: string): Promise<Error> {
  release.info.status = 'failed';
  release.info.description = `Upgrade "${release.name}" failed: ${message}`;
  await s.store.update(release);
  if (!args.flags.has('--rollback-on-failure')) return new Error(message);
  const good = (await s.store.history(release.name))
    .filter((r) => r.info.status === 'superseded' || r.info.status === 'deployed')
    .at(-1);
  if (good === undefined)
    return new Error(
      `unable to find a previously successful release when attempting to rollback. original upgrade error: ${message}`,
    );
  try {
    await rollback(s, release.name, good.version, {
      ...args,
      wait: waits(args) ? 'watcher' : 'hookOnly',
      historyMax: 0,
    });
  } catch (error) {
    return new Error(
      `an error occurred while rolling back the release. original upgrade error: ${message}: ${(error as Error).message}`,
    );
  }
  return new Error(
    `release ${release.name} failed, and has been rolled back due to rollback-on-failure being set: ${message}`,
  );
}
