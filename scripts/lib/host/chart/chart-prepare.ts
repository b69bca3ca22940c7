import { join } from 'node:path';
import { lockEnv } from '../../lock/check-lock.ts';
import { hostPaths } from '../host-paths.ts';
import { parseEnvFile } from '../load-host-config.ts';
import { assertReleasePath } from '../release-files.ts';
import { ensureWorktree, verifiedTarget } from '../release-worktree.ts';
import { commitLockEnv } from '../release-lock.ts';
import type { Step, TickContext } from '../tick-context.ts';
import type { ChartTickState } from './chart-target.ts';
import { summarizeChart } from './chart-metadata.ts';
import { checkChartPins } from './chart-values.ts';
import { helmPort } from './helm-port.ts';
import type { Helm } from './helm-port.ts';
import { chartFilesFromDir } from './package-chart.ts';
import { verifiedReleaseChart } from './release-chart.ts';

/** A commit tree's chart folder (the seed: `<commit tree>/deploy/chart/hephaestus`). */
export const SOURCE_CHART = 'hephaestus';

export function tickHelm(ctx: TickContext): Helm {
  const c = ctx.config;
  return helmPort(ctx.ports.exec, {
    binary: c.HEPHAESTUS_HELM,
    release: c.HEPHAESTUS_CHART_RELEASE,
    namespace: c.HEPHAESTUS_CHART_NAMESPACE,
    waitTimeoutSeconds: c.HEPHAESTUS_WAIT_TIMEOUT,
    kubeconfig: c.KUBECONFIG,
  });
}

/**
 * Step 3 on a chart host: verify first. A release: the joint lock, the pulled chart's digest, signature, metadata and
 * pins (never a schema-1 lock, never the source chart). A commit: the signed channel's pins and the commit's source
 * chart. Then the worktree at the verified commit and the lock under release-locks/.
 */
export const prepareChart: Step<ChartTickState> = async (ctx, state) => {
  const { plan, channel, cache, commit, release, name } = await verifiedTarget(state, 'prepareChart');
  const { config, ports } = ctx;
  const root = config.HEPHAESTUS_ROOT;
  let text: string;
  let verified: Awaited<ReturnType<typeof verifiedReleaseChart>> | undefined;
  if (release !== undefined) {
    const source = {
      checkout: plan.checkout,
      releaseUrl: config.HEPHAESTUS_RELEASE_URL,
      timeoutMs: config.HEPHAESTUS_FETCH_TIMEOUT * 1000,
    };
    verified = await verifiedReleaseChart({
      source,
      tag: release,
      tagCommit: commit,
      policy: await ctx.trust('release'),
      helm: tickHelm(ctx),
      chartDir: join(root, 'chart'),
    });
    text = lockEnv(verified.lock);
  } else {
    text = commitLockEnv(commit, 'images' in channel.target ? channel.target.images : {});
  }
  const worktree = hostPaths.worktree(root, name);
  const made = await ensureWorktree(cache, ports.git(worktree), commit, ports.clock.now());
  const lockPath = hostPaths.lockEnv(root, name);
  await ports.fs.writeAtomic(lockPath, text, 0o600);
  const env = parseEnvFile(text, lockPath);
  const images = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('HEPHAESTUS_IMAGE_')));
  state.target = { name, release, commit };
  state.worktree = worktree;
  state.lockEnv = env;
  state.images = images;
  if (verified !== undefined) {
    const chartName = verified.lock.chart.name;
    state.chart = {
      chart: verified.archive,
      name: chartName,
      version: verified.lock.chart.version,
      profilesDir: join(worktree, 'deploy', 'chart', chartName, 'profiles'),
      profiles: verified.summary.profiles,
      imageVariables: verified.summary.imageVariables,
    };
  } else {
    const folder = join(worktree, 'deploy', 'chart', SOURCE_CHART);
    await assertReleasePath(worktree, worktree, join(folder, 'Chart.yaml'), 'file', `the chart of ${name}`);
    const summary = summarizeChart(await chartFilesFromDir(folder), `deploy/chart/${SOURCE_CHART} at ${name}`);
    checkChartPins(summary.imageVariables, images, name);
    state.chart = {
      chart: folder,
      name: summary.metadata.name,
      version: summary.metadata.version,
      profilesDir: join(folder, 'profiles'),
      profiles: summary.profiles,
      imageVariables: summary.imageVariables,
    };
  }
  return {
    next: true,
    fields: {
      target: name,
      commit,
      worktree: made,
      chart: `${state.chart.name}-${state.chart.version}`,
      source: release === undefined ? 'commit tree' : 'verified package',
    },
  };
};
