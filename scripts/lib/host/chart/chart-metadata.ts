import { parse } from 'yaml';
import { z } from 'zod';
import { describeZodIssues } from '../../errors/zod-issues.ts';
import { ChartError } from './chart-error.ts';
import type { ChartFiles } from './chart-archive.ts';

/** The fields of `Chart.yaml` a host checks (Helm chart API v2). */
export const chartYamlSchema = z.looseObject({
  apiVersion: z.literal('v2'),
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,52}$/, 'expected a chart name'),
  version: z.string().min(1),
  appVersion: z.string().optional(),
});

export type ChartYaml = z.output<typeof chartYamlSchema>;

export interface ChartSummary {
  readonly metadata: ChartYaml;
  /** `images.<HEPHAESTUS_IMAGE_*>` keys of the chart's default values: every image the chart pins. */
  readonly imageVariables: readonly string[];
  /** Profile names under `profiles/`. */
  readonly profiles: readonly string[];
}

function yamlOf(text: string, label: string): unknown {
  try {
    return parse(text);
  } catch (cause) {
    throw new ChartError('archive', `Cannot read ${label}: ${(cause as Error).message}`, { cause });
  }
}

const valuesSchema = z
  .looseObject({
    images: z
      .record(z.string().regex(/^HEPHAESTUS_IMAGE_[A-Z0-9_]+$/, 'expected a HEPHAESTUS_IMAGE_* key'), z.string())
      .optional(),
  })
  .nullable();

/** Chart.yaml and the image keys of values.yaml, from a chart's files (`<name>/…` in a package, or a folder read the same way). Pure. */
export function summarizeChart(files: ChartFiles, label: string): ChartSummary {
  const chartFile = [...files.keys()].find((k) => /^[^/]+\/Chart\.yaml$/.test(k));
  if (chartFile === undefined) throw new ChartError('archive', `Cannot read chart ${label}: no <name>/Chart.yaml`);
  const dir = chartFile.slice(0, -'Chart.yaml'.length);
  // Stryker disable next-line OptionalChaining,StringLiteral: chartFile is one of the keys, so the file is there
  const raw = yamlOf(files.get(chartFile)?.toString('utf8') ?? '', `${label} ${chartFile}`);
  const meta = chartYamlSchema.safeParse(raw);
  if (!meta.success)
    throw new ChartError(
      'archive',
      `Cannot read chart ${label}:\n${describeZodIssues(chartFile, raw, meta.error).join('\n')}`,
    );
  const valuesText = files.get(`${dir}values.yaml`)?.toString('utf8') ?? '';
  const rawValues = yamlOf(valuesText, `${label} ${dir}values.yaml`) ?? null;
  const values = valuesSchema.safeParse(rawValues);
  if (!values.success)
    throw new ChartError(
      'archive',
      `Cannot read chart ${label}:\n${describeZodIssues(`${dir}values.yaml`, rawValues, values.error).join('\n')}`,
    );
  const profiles = [...files.keys()]
    .filter((k) => k.startsWith(`${dir}profiles/`) && k.endsWith('.yaml'))
    .map((k) => k.slice(`${dir}profiles/`.length, -'.yaml'.length))
    .filter((p) => !p.includes('/'));
  return {
    metadata: meta.data,
    imageVariables: Object.keys(values.data?.images ?? {}).sort(),
    profiles: profiles.sort(),
  };
}
