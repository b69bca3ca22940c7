// A chart for the Helm simulator: a folder or a package (read with the production archive reader), its user-supplied
// values (`--values` files in order, then `--set`) and the manifest rendered for one revision.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { readChartArchive } from '../../../scripts/lib/host/chart/chart-archive.ts';
import type { ChartFiles } from '../../../scripts/lib/host/chart/chart-archive.ts';
import { summarizeChart } from '../../../scripts/lib/host/chart/chart-metadata.ts';
import type { HelmArgs } from './args.ts';
import { mergeValues, parseValuesFile, renderChart, setValue } from './render-chart.ts';
import type { Rendered } from './render-chart.ts';

export interface ChartSource {
  readonly files: ChartFiles;
  readonly dir: string;
  readonly metadata: Record<string, unknown> & { name: string; version: string };
  readonly defaults: Record<string, unknown>;
}

export function loadChart(path: string): ChartSource {
  let files: ChartFiles;
  let dir: string;
  if (statSync(path).isDirectory()) {
    const found = new Map<string, Buffer>();
    const walk = (d: string) => {
      for (const entry of readdirSync(d, { withFileTypes: true })) {
        const full = join(d, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile()) found.set(`${basename(path)}/${relative(path, full)}`, readFileSync(full));
      }
    };
    walk(path);
    files = found;
    dir = `${basename(path)}/`;
  } else {
    files = readChartArchive(readFileSync(path), path);
    const chartFile = [...files.keys()].find((k) => /^[^/]+\/Chart\.yaml$/.test(k)) ?? '';
    dir = chartFile.slice(0, -'Chart.yaml'.length);
  }
  const summary = summarizeChart(files, path);
  const defaults = parseValuesFile(files.get(`${dir}values.yaml`)?.toString('utf8') ?? '', `${dir}values.yaml`);
  return { files, dir, metadata: summary.metadata as ChartSource['metadata'], defaults };
}

/** valueOpts.MergeValues: the values files in order, then each `--set`. */
export function userValues(args: HelmArgs): Record<string, unknown> {
  let config: Record<string, unknown> = {};
  for (const file of args.values) config = mergeValues(config, parseValuesFile(readFileSync(file, 'utf8'), file));
  for (const assignment of args.set) config = setValue(config, assignment);
  return config;
}

export function render(
  chart: ChartSource,
  config: Record<string, unknown>,
  release: { name: string; namespace: string; revision: number },
): Rendered {
  return renderChart({
    files: chart.files,
    dir: chart.dir,
    values: mergeValues(chart.defaults, config),
    release,
    chart: { name: chart.metadata.name, version: chart.metadata.version },
  });
}
