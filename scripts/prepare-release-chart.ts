#!/usr/bin/env node
// A release's chart on a host, by hand (docs/chart-host.md): verify the joint lock and the chart, write the package and its pins.
import './lib/cli/require-node.ts';
import './lib/cli/compile-cache.ts';
import { join, resolve } from 'node:path';
import { command, flag, positional, string } from 'cmd-ts';
import { runCli } from './lib/cli/run-cli.ts';
import { UsageError } from './lib/errors/toolkit-error.ts';
import { COMMIT_SHA, RELEASE_TAG } from './lib/channel/channel-schema.ts';
import { LockError } from './lib/lock/lock-error.ts';
import { exec } from './lib/ports/exec.ts';
import { writeFileAtomic } from './lib/ports/atomic-write.ts';
import { acquireFileLock } from './lib/ports/file-lock.ts';
import { fetchBoundsFrom, fetchDeployState } from './lib/host/deploy-state-cache.ts';
import { hostTrustPolicy } from './lib/host/host-trust.ts';
import { loadHostConfig } from './lib/host/load-host-config.ts';
import { checkHostRoot } from './lib/host/check-root.ts';
import { hostPaths } from './lib/host/host-paths.ts';
import { HostError } from './lib/host/host-error.ts';
import { helmPort } from './lib/host/chart/helm-port.ts';
import { imagesValues } from './lib/host/chart/chart-values.ts';
import { verifiedReleaseChart } from './lib/host/chart/release-chart.ts';

const log = (step: string, fields: Record<string, unknown>): void => {
  process.stderr.write(`prepare-release-chart: ${step} ${Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')}\n`);
};

const cmd = command({
  name: 'prepare-release-chart',
  description:
    'On a chart host: prepare-release-chart.ts <tag> <commit> <dir> <helm>. Verify the joint lock release-<tag>.chart.json (release trust; its commit must be the tag\'s and <commit>),\n' +
    'pull the chart with <helm> by the OCI digest the lock names, check the digest Helm reports, the chart\'s signature, its Chart.yaml (name, version = release) and its image keys against the lock,\n' +
    'then write <dir>/<name>-<version>.tgz and <dir>/<tag>.images.yaml (the pins, the last values file of a manual `helm upgrade`). Nothing is written unless every check passes.\n' +
    'Settings come from /etc/hephaestus/reconcile.env as for a tick (HEPHAESTUS_REPOSITORY, HEPHAESTUS_RELEASE_KEYS or _IDENTITY, HEPHAESTUS_RELEASE_URL).\n' +
    'Exit status: 0 written, 1 verification or download failure, 2 configuration or usage error, 75 a tick is running (nothing touched).',
  args: {
    tag: positional({ type: string, displayName: 'tag' }),
    commit: positional({ type: string, displayName: 'commit' }),
    dir: positional({ type: string, displayName: 'dir' }),
    helm: positional({ type: string, displayName: 'helm' }),
    json: flag({ long: 'json', description: 'print {"chart","values","reference","commit"} as one JSON object' }),
  },
  handler: async ({ tag, commit, dir, helm, json }) => {
    if (!RELEASE_TAG.test(tag)) throw new UsageError(`Cannot prepare chart: tag "${tag}" is not vX.Y.Z`);
    if (!COMMIT_SHA.test(commit)) throw new UsageError(`Cannot prepare chart: commit "${commit}" is not 40 lower-case hex digits`);
    if (helm.startsWith('-')) throw new UsageError(`Cannot prepare chart: helm "${helm}" must be a program, not an option`);
    const config = await loadHostConfig();
    const policy = await hostTrustPolicy(config, 'release', (message) => log('trust', { message }));
    await checkHostRoot(config.HEPHAESTUS_ROOT);
    // It fetches into the tick's cache: never while a tick runs.
    const held = await acquireFileLock(hostPaths.tickLock(config.HEPHAESTUS_ROOT));
    if (!held.held) throw new HostError('tick-running', `Cannot prepare chart: a tick${held.holder === undefined ? '' : ` (pid ${held.holder})`} is running; try again when it ends`, { exitCode: 75 });
    try {
      const checkout = await fetchDeployState(config.HEPHAESTUS_ROOT, config.HEPHAESTUS_REPOSITORY, config.HEPHAESTUS_DEPLOY_BRANCH, fetchBoundsFrom(config));
      const tagged = await checkout.git.run(['rev-parse', '--verify', '--quiet', `refs/tags/${tag}^{commit}`]);
      const tagCommit = tagged.stdout.toString('utf8').trim();
      if (tagged.code !== 0) throw new LockError('match', `Cannot prepare chart: tag "${tag}" is not in "${config.HEPHAESTUS_REPOSITORY}"`);
      if (tagCommit !== commit) throw new LockError('match', `Cannot prepare chart: tag "${tag}" is commit ${tagCommit}, not ${commit}`);
      const port = helmPort(exec, { binary: helm, release: config.HEPHAESTUS_CHART_RELEASE, namespace: config.HEPHAESTUS_CHART_NAMESPACE, waitTimeoutSeconds: config.HEPHAESTUS_WAIT_TIMEOUT, kubeconfig: config.KUBECONFIG });
      const out = resolve(dir);
      const verified = await verifiedReleaseChart({ source: { checkout, releaseUrl: config.HEPHAESTUS_RELEASE_URL, timeoutMs: config.HEPHAESTUS_FETCH_TIMEOUT * 1000 }, tag, tagCommit, policy, helm: port, chartDir: out });
      const pins = Object.fromEntries(verified.summary.imageVariables.map((v) => [v, verified.lock.images[v] ?? '']));
      const values = join(out, `${tag}.images.yaml`);
      await writeFileAtomic(values, imagesValues({ name: tag, commit }, pins), { mode: 0o600 });
      log('prepared', { chart: verified.archive, values, reference: verified.lock.chart.reference });
      const result = { chart: verified.archive, values, reference: verified.lock.chart.reference, commit };
      process.stdout.write(json ? `${JSON.stringify(result)}\n` : `chart: ${result.chart}\nvalues: ${result.values}\n`);
      return 0;
    } finally {
      await held.release();
    }
  },
});

await runCli('prepare-release-chart', cmd, process.argv.slice(2));
