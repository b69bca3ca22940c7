// Helm's release actions over the Secrets history, following helm/helm pkg/action (upgrade.go, rollback.go,
// uninstall.go): which revision is current, which statuses each step writes, and when an upgrade is refused.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { readChartArchive } from '../../../scripts/lib/host/chart/chart-archive.ts';
import type { ChartFiles } from '../../../scripts/lib/host/chart/chart-archive.ts';
import { summarizeChart } from '../../../scripts/lib/host/chart/chart-metadata.ts';
import type { HelmArgs } from './args.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { isPending, ReleaseStore } from './release-store.ts';
import type { Release, ReleaseStatus } from './release-store.ts';
import { mergeValues, parseValuesFile, renderChart, setValue } from './render-chart.ts';
import { waitReady } from './wait-ready.ts';
import { parseAllDocuments } from 'yaml';
import { checkFault } from './faults.ts';

export class HelmFailure extends Error {}

function loadChart(path: string): { files: ChartFiles; dir: string } {
  if (statSync(path).isDirectory()) {
    const files = new Map<string, Buffer>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile()) files.set(`${basename(path)}/${relative(path, full)}`, readFileSync(full));
      }
    };
    walk(path);
    return { files, dir: `${basename(path)}/` };
  }
  const files = readChartArchive(readFileSync(path), path);
  const chartFile = [...files.keys()].find((k) => /^[^/]+\/Chart\.yaml$/.test(k)) ?? '';
  return { files, dir: chartFile.slice(0, -'Chart.yaml'.length) };
}

const now = () => new Date().toISOString();
const newest = (history: Release[], ok: (s: ReleaseStatus) => boolean) =>
  [...history].reverse().find((r) => ok(r.info.status));

function manifestObjects(manifest: string): KubeObject[] {
  return parseAllDocuments(manifest)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null && typeof o === 'object');
}

export class Actions {
  readonly #kube: KubeClient;
  readonly #store: ReleaseStore;
  readonly #namespace: string;

  constructor(kube: KubeClient, namespace: string) {
    this.#kube = kube;
    this.#namespace = namespace;
    this.#store = new ReleaseStore(kube, namespace);
  }

  history(name: string): Promise<Release[]> {
    return this.#store.history(name);
  }

  /** Applies the objects with Helm's ownership labels and deletes what the previous manifest had and this one lacks. */
  async #applyManifest(name: string, objects: readonly KubeObject[], previous: string | undefined): Promise<void> {
    for (const object of objects) {
      const labels = {
        ...((object.metadata.labels as Record<string, string> | undefined) ?? {}),
        'app.kubernetes.io/managed-by': 'Helm',
      };
      const annotations = {
        ...((object.metadata.annotations as Record<string, string> | undefined) ?? {}),
        'meta.helm.sh/release-name': name,
        'meta.helm.sh/release-namespace': this.#namespace,
      };
      await this.#kube.apply(this.#namespace, { ...object, metadata: { ...object.metadata, labels, annotations } });
    }
    const keep = new Set(objects.map((o) => `${String(o.kind)}/${String(o.metadata.name)}`));
    for (const old of previous === undefined ? [] : manifestObjects(previous)) {
      if (keep.has(`${String(old.kind)}/${String(old.metadata.name)}`)) continue;
      await this.#kube.remove(
        this.#kube.path(String(old.apiVersion), String(old.kind), this.#namespace, String(old.metadata.name)),
      );
    }
  }

  /** `helm upgrade --install NAME CHART`: install when there is no history (or only an uninstalled one), else upgrade. */
  async upgrade(name: string, chartPath: string, args: HelmArgs): Promise<Release> {
    const { files, dir } = loadChart(chartPath);
    const summary = summarizeChart(files, chartPath);
    const history = await this.#store.history(name);
    const last = history.at(-1);
    const install = last === undefined || last.info.status === 'uninstalled';
    if (last === undefined && !args.flags.has('--install'))
      throw new HelmFailure(`UPGRADE FAILED: "${name}" has no deployed releases`);
    if (last !== undefined && isPending(last.info.status))
      throw new HelmFailure('UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress');
    let current: Release | undefined;
    if (!install && last !== undefined) {
      current = last.info.status === 'deployed' ? last : newest(history, (s) => s === 'deployed');
      if (current === undefined && (last.info.status === 'failed' || last.info.status === 'superseded')) current = last;
      if (current === undefined) throw new HelmFailure(`UPGRADE FAILED: "${name}" has no deployed releases`);
    }
    let config: Record<string, unknown> = {};
    for (const file of args.values) config = mergeValues(config, parseValuesFile(readFileSync(file, 'utf8'), file));
    for (const assignment of args.set) config = setValue(config, assignment);
    const defaults = parseValuesFile(files.get(`${dir}values.yaml`)?.toString('utf8') ?? '', `${dir}values.yaml`);
    const revision = (last?.version ?? 0) + 1;
    const rendered = renderChart({
      files,
      dir,
      values: mergeValues(defaults, config),
      release: { name, namespace: this.#namespace, revision },
      chart: { name: summary.metadata.name, version: summary.metadata.version },
    });
    const release: Release = {
      name,
      namespace: this.#namespace,
      version: revision,
      info: {
        first_deployed: current?.info.first_deployed ?? now(),
        last_deployed: now(),
        deleted: '',
        description: install ? 'Initial install underway' : 'Preparing upgrade',
        status: install ? 'pending-install' : 'pending-upgrade',
      },
      chart: { metadata: summary.metadata, values: defaults },
      config,
      manifest: rendered.manifest,
    };
    await this.#store.record(release);
    try {
      await this.#applyManifest(name, rendered.objects, current?.manifest);
      checkFault(install ? 'install' : 'upgrade');
      if (args.wait !== undefined || args.flags.has('--rollback-on-failure'))
        await waitReady(
          this.#kube,
          this.#namespace,
          rendered.objects,
          args.flags.has('--wait-for-jobs'),
          args.timeoutMs,
        );
    } catch (error) {
      const message = (error as Error).message;
      release.info.status = 'failed';
      release.info.description = `${install ? 'Release' : 'Upgrade'} "${name}" failed: ${message}`;
      await this.#store.record(release);
      const verb = install ? 'INSTALLATION FAILED' : 'UPGRADE FAILED';
      if (!args.flags.has('--rollback-on-failure')) throw new HelmFailure(`${verb}: ${message}`);
      if (install) {
        await this.uninstall(name);
        throw new HelmFailure(
          `${verb}: release ${name} failed, and has been uninstalled due to rollback-on-failure being set: ${message}`,
        );
      }
      const good = newest(await this.#store.history(name), (s) => s === 'deployed' || s === 'superseded');
      if (good === undefined)
        throw new HelmFailure(
          `${verb}: unable to find a previously successful release when attempting to rollback. original upgrade error: ${message}`,
        );
      await this.rollback(name, good.version, args);
      throw new HelmFailure(
        `${verb}: release ${name} failed, and has been rolled back due to rollback-on-failure being set: ${message}`,
      );
    }
    if (current !== undefined) {
      current.info.status = 'superseded';
      await this.#store.record(current);
    }
    release.info.status = 'deployed';
    release.info.description = install ? 'Install complete' : 'Upgrade complete';
    await this.#store.record(release);
    return release;
  }

  /** `helm rollback NAME REVISION`: a new revision with the target's chart, values and manifest; the deployed ones are superseded. */
  async rollback(name: string, target: number, args: HelmArgs): Promise<Release> {
    const history = await this.#store.history(name);
    const current = history.at(-1);
    if (current === undefined) throw new HelmFailure('release: not found');
    const previousVersion = target === 0 ? current.version - 1 : target;
    const previous = history.find((r) => r.version === previousVersion);
    if (previous === undefined) throw new HelmFailure(`release has no ${previousVersion} version`);
    const release: Release = {
      ...structuredClone(previous),
      version: current.version + 1,
      info: {
        first_deployed: current.info.first_deployed,
        last_deployed: now(),
        deleted: '',
        description: `Rollback to ${previousVersion}`,
        status: 'pending-rollback',
      },
    };
    await this.#store.record(release);
    const objects = manifestObjects(previous.manifest);
    try {
      await this.#applyManifest(name, objects, current.manifest);
      checkFault('rollback');
      if (args.wait !== undefined)
        await waitReady(this.#kube, this.#namespace, objects, args.flags.has('--wait-for-jobs'), args.timeoutMs);
    } catch (error) {
      release.info.status = 'failed';
      release.info.description = `Release "${name}" failed: ${(error as Error).message}`;
      await this.#store.record(release);
      throw new HelmFailure(`release ${name} failed: ${(error as Error).message}`);
    }
    for (const r of history.filter((h) => h.info.status === 'deployed')) {
      r.info.status = 'superseded';
      await this.#store.record(r);
    }
    release.info.status = 'deployed';
    await this.#store.record(release);
    return release;
  }

  /** `helm uninstall NAME`: deletes the last revision's resources and, without --keep-history, every revision. */
  async uninstall(name: string): Promise<void> {
    const history = await this.#store.history(name);
    const last = history.at(-1);
    if (last === undefined) throw new HelmFailure(`uninstall: Release not loaded: ${name}: release: not found`);
    for (const object of manifestObjects(last.manifest)) {
      await this.#kube.remove(
        this.#kube.path(String(object.apiVersion), String(object.kind), this.#namespace, String(object.metadata.name)),
      );
    }
    await this.#store.removeAll(name);
  }
}
