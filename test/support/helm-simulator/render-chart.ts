// Renders a chart's templates with the subset of Helm's Go templates the example chart uses (a simulator: no Go
// template engine runs here): `{{ .Values.a.b }}`, `{{ .Release.Name|Namespace|Revision }}`, `{{ .Chart.Name|Version }}`,
// each optionally piped to `quote`. Anything else is refused, so a chart cannot silently render differently than Helm.
import { parse, parseAllDocuments } from 'yaml';
import type { ChartFiles } from '../../../scripts/lib/host/chart/chart-archive.ts';
import type { KubeObject } from './kube-client.ts';

type Values = Record<string, unknown>;
const isMap = (v: unknown): v is Values => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Helm's coalescing of values files: maps merge key by key, anything else is replaced; a later file wins. */
export function mergeValues(base: Values, over: Values): Values {
  const out: Values = { ...base };
  for (const [key, value] of Object.entries(over))
    out[key] = isMap(value) && isMap(out[key]) ? mergeValues(out[key], value) : value;
  return out;
}

/** `--set a.b=1`: numbers and booleans typed as Helm's strvals parser types them. */
export function setValue(values: Values, assignment: string): Values {
  const eq = assignment.indexOf('=');
  if (eq <= 0) throw new Error(`failed parsing --set data: key "${assignment}" has no value`);
  const path = assignment.slice(0, eq).split('.');
  const raw = assignment.slice(eq + 1);
  const value: unknown = /^-?\d+$/.test(raw)
    ? Number(raw)
    : raw === 'true'
      ? true
      : raw === 'false'
        ? false
        : raw === 'null'
          ? null
          : raw;
  const patch: Values = {};
  let cursor = patch;
  path.forEach((part, index) => {
    if (index === path.length - 1) cursor[part] = value;
    else cursor = cursor[part] = {};
  });
  return mergeValues(values, patch);
}

export interface RenderInput {
  readonly files: ChartFiles;
  readonly dir: string;
  readonly values: Values;
  readonly release: { readonly name: string; readonly namespace: string; readonly revision: number };
  readonly chart: { readonly name: string; readonly version: string };
}

function lookup(expr: string, input: RenderInput, where: string): unknown {
  const [root, ...path] = expr.slice(1).split('.');
  let value: unknown;
  if (root === 'Values') value = input.values;
  else if (root === 'Release')
    value = { Name: input.release.name, Namespace: input.release.namespace, Revision: input.release.revision };
  else if (root === 'Chart') value = { Name: input.chart.name, Version: input.chart.version };
  else throw new Error(`${where}: the simulator does not support "${expr}"`);
  for (const part of path) value = isMap(value) ? value[part] : undefined;
  return value;
}

function renderText(text: string, input: RenderInput, where: string): string {
  return text.replace(/\{\{-?\s*(.*?)\s*-?\}\}/g, (_all, body: string) => {
    const [head, ...pipes] = body.split('|').map((p) => p.trim());
    if (head === undefined || !/^\.[A-Za-z][A-Za-z0-9_.]*$/.test(head))
      throw new Error(`${where}: the simulator does not support the template action "{{ ${body} }}"`);
    let value = lookup(head, input, where);
    for (const pipe of pipes) {
      if (pipe !== 'quote') throw new Error(`${where}: the simulator does not support the template function "${pipe}"`);
      value = JSON.stringify(value === undefined || value === null ? '' : String(value));
    }
    // Go's text/template prints a missing value as "<no value>".
    return value === undefined ? '<no value>' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}

export interface Rendered {
  readonly manifest: string;
  readonly objects: readonly KubeObject[];
}

/** Renders `templates/*.yaml` in name order, as `helm template` would list them. */
export function renderChart(input: RenderInput): Rendered {
  const parts: string[] = [];
  const objects: KubeObject[] = [];
  const templates = [...input.files.keys()]
    .filter((k) => k.startsWith(`${input.dir}templates/`) && /\.ya?ml$/.test(k))
    .sort();
  for (const file of templates) {
    const text = renderText(input.files.get(file)?.toString('utf8') ?? '', input, file);
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new Error(`YAML parse error on ${file}: ${doc.errors[0]?.message ?? ''}`);
      const object: unknown = doc.toJS();
      if (object === null || object === undefined) continue;
      if (!isMap(object) || !isMap(object.metadata))
        throw new Error(`${file}: a rendered document is not a Kubernetes object`);
      objects.push(object as KubeObject);
      parts.push(`---\n# Source: ${file}\n${doc.toString()}`);
    }
  }
  return { manifest: parts.join(''), objects };
}

export function parseValuesFile(text: string, file: string): Values {
  const value: unknown = parse(text);
  if (value === null || value === undefined) return {};
  if (!isMap(value)) throw new Error(`failed to parse ${file}: not a map of values`);
  return value;
}
