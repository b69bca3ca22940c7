import { join } from 'node:path';
import { appliedView } from '../applied-record.ts';
import { assertReleasePath } from '../release-files.ts';
import type { Step } from '../tick-context.ts';
import type { ChartTickState } from './chart-target.ts';
import { ChartError } from './chart-error.ts';
import { checkUserValues, imagesValues, profilesOf } from './chart-values.ts';
import { tickHelm } from './chart-prepare.ts';
import { planRecovery } from './recovery-plan.ts';
import { planUpgrade } from './upgrade-plan.ts';
import { remainingWriters } from './writer-workloads.ts';

function chartOf(state: ChartTickState) {
  const { chart, target, worktree } = state;
  if (chart === undefined || target === undefined || worktree === undefined || state.images === undefined)
    throw new Error('chart steps run after prepareChart');
  return { chart, target, worktree, images: state.images };
}

/**
 * Step 4 on a chart host: the values files in Helm's order. The profiles of HEPHAESTUS_CHART_PROFILE (each one the
 * release has), then the operator's /etc/hephaestus/chart.yaml (checked), then the verified pins, written last to
 * `<root>/chart/<target>.images.yaml`, so no other file can override an image.
 */
export const chartValues: Step<ChartTickState> = async (ctx, state) => {
  const { chart, target, worktree, images } = chartOf(state);
  // A new Pod waits up to 10 minutes for the schema: a shorter Helm timeout fails healthy upgrades.
  if (ctx.config.HEPHAESTUS_WAIT_TIMEOUT <= 600)
    ctx.log('values', {
      warning: `HEPHAESTUS_WAIT_TIMEOUT=${ctx.config.HEPHAESTUS_WAIT_TIMEOUT} is not above the 600 s a new Pod may wait for the schema`,
    });
  const files: string[] = [];
  for (const profile of profilesOf(ctx.config.HEPHAESTUS_CHART_PROFILE)) {
    if (!chart.profiles.includes(profile)) {
      throw new ChartError(
        'profile',
        `Cannot apply ${target.name}: HEPHAESTUS_CHART_PROFILE names profile "${profile}", which the release lacks (it has: ${chart.profiles.join(', ') || 'none'})`,
        { exitCode: 2, details: { profile } },
      );
    }
    const file = join(chart.profilesDir, `${profile}.yaml`);
    await assertReleasePath(worktree, worktree, file, 'file', `profile "${profile}" of ${target.name}`);
    files.push(file);
  }
  const user = await checkUserValues(ctx.config.HEPHAESTUS_ETC);
  if (user !== undefined) files.push(user);
  const pins = Object.fromEntries(chart.imageVariables.map((v) => [v, images[v] ?? '']));
  const pinsFile = join(ctx.config.HEPHAESTUS_ROOT, 'chart', `${target.name}.images.yaml`);
  await ctx.ports.fs.writeAtomic(pinsFile, imagesValues(target, pins), 0o600);
  files.push(pinsFile);
  chart.valuesFiles = files;
  return {
    next: true,
    fields: {
      profiles: profilesOf(ctx.config.HEPHAESTUS_CHART_PROFILE).join(' '),
      userValues: user ?? 'none',
      pins: pinsFile,
    },
  };
};

/**
 * Step 5: a pending-* release blocks every upgrade. Within one major version roll back to the newest deployed or
 * superseded revision; a release Helm never finished needs an operator's uninstall; a pending cutover stops (exit 3).
 */
export const recoverRelease: Step = async (ctx) => {
  const helm = tickHelm(ctx);
  const plan = planRecovery(await helm.history());
  const { HEPHAESTUS_CHART_RELEASE: release, HEPHAESTUS_CHART_NAMESPACE: namespace } = ctx.config;
  if (plan.kind === 'never-finished') {
    throw new ChartError(
      'never-finished',
      `Cannot upgrade release "${release}": Helm never finished it (revision ${plan.pending.revision} is ${plan.pending.status}, no revision was deployed); run: ${helm.uninstallCommand} (it keeps the data volumes and Secrets), then the next tick installs it again`,
      { details: { revision: plan.pending.revision } },
    );
  }
  if (plan.kind === 'uninstalling') {
    throw new ChartError(
      'never-finished',
      `Cannot upgrade release "${release}": an uninstall stopped (revision ${plan.pending.revision} is uninstalling) and Helm upgrades nothing over it; run: ${helm.uninstallCommand} again (it keeps the data volumes and Secrets), then the next tick installs it again`,
      { details: { revision: plan.pending.revision } },
    );
  }
  if (plan.kind === 'pending-cutover') {
    throw new ChartError(
      'cutover',
      `Cannot continue: the cutover of release "${release}" from ${plan.from} to ${plan.pending.chart} stopped (revision ${plan.pending.revision} is ${plan.pending.status}); the database may be migrated: recover it as docs/chart-host.md "Recover a stopped cutover" says`,
      { exitCode: 3, details: { revision: plan.pending.revision } },
    );
  }
  if (plan.kind === 'rollback') {
    ctx.log('recover', {
      status: 'rollback',
      pending: plan.pending.revision,
      pendingStatus: plan.pending.status,
      to: plan.revision,
      namespace,
    });
    await helm.rollback(plan.revision);
    return {
      next: true,
      fields: { recovered: `rolled back ${plan.pending.status} revision ${plan.pending.revision} to ${plan.revision}` },
    };
  }
  return { next: true, fields: { history: plan.kind === 'install' ? 'none' : 'ok' } };
};

/**
 * Step 6: `helm upgrade --install` with the seed's arguments. Across a major version (a cutover) the installed values
 * must run no server and no worker; the target runs one server and no worker, without --rollback-on-failure (Helm
 * cannot restore the old schema). A cutover Helm finished before the record was written completes its record only.
 */
export const upgradeChart: Step<ChartTickState> = async (ctx, state) => {
  const { chart, target } = chartOf(state);
  const helm = tickHelm(ctx);
  const [status, metadata] = await Promise.all([helm.status(), helm.metadata()]);
  const pins = Object.fromEntries(chart.imageVariables.map((v) => [v, state.images?.[v] ?? '']));
  const record = state.applied === undefined ? undefined : appliedView(state.applied);
  const plan = planUpgrade({
    status,
    metadata,
    recorded: record === undefined ? undefined : (record.release ?? record.commit),
    target,
    chartVersion: chart.version,
    pins,
    release: ctx.config.HEPHAESTUS_CHART_RELEASE,
  });
  if (plan.kind === 'already-deployed') {
    return {
      next: true,
      fields: {
        helm: 'already deployed',
        completed: `record of ${target.name} from Helm's deployed revision ${status?.version}`,
      },
    };
  }
  const { cutover } = plan;
  if (cutover) {
    const writers = await remainingWriters(ctx.config.KUBECONFIG, ctx.config.HEPHAESTUS_CHART_NAMESPACE);
    if (writers.length > 0) {
      throw new ChartError(
        'cutover',
        `Cannot cut over release "${ctx.config.HEPHAESTUS_CHART_RELEASE}" to ${chart.version}: writer workloads still run in "${ctx.config.HEPHAESTUS_CHART_NAMESPACE}": ${writers.join(', ')}; wait until they are gone (docs/chart-host.md)`,
        { exitCode: 3, details: { writers } },
      );
    }
  }
  await helm.upgradeInstall(
    chart.chart,
    chart.valuesFiles ?? [],
    cutover
      ? { rollbackOnFailure: false, set: ['server.replicas=1', 'worker.replicas=0'] }
      : { rollbackOnFailure: true },
  );
  const after = await helm.status();
  if (after?.info.status !== 'deployed')
    throw new ChartError(
      'helm-failed',
      `Cannot confirm release "${ctx.config.HEPHAESTUS_CHART_RELEASE}": Helm reports ${after?.info.status ?? 'no release'} after the upgrade`,
    );
  return {
    next: true,
    fields: {
      helm: cutover ? 'cutover' : 'upgraded',
      revision: after.version,
      chart: `${chart.name}-${chart.version}`,
    },
  };
};
