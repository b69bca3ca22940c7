import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { readFileBounded } from '../../signing/read-bounded.ts';
import { ChartError } from './chart-error.ts';
import { helmValuesKeys } from './helm-values-keys.ts';

export const USER_VALUES_FILE = 'chart.yaml';
/** Keys only the host writes (in the last values file): an operator's file that sets them is refused. */
export const HOST_OWNED_KEYS = ['images', 'release'] as const;

const valuesError = (message: string, file: string) =>
  new ChartError('values', message, { exitCode: 2, details: { file } });

/**
 * `<HEPHAESTUS_ETC>/chart.yaml`, the operator's values: absent is allowed; otherwise a regular file, mode 0600, root's
 * when the reconciler runs as root, a YAML map that sets neither `images` nor `release`. Returns its path, or undefined.
 */
export async function checkUserValues(etc: string): Promise<string | undefined> {
  const file = join(etc, USER_VALUES_FILE);
  const info = await lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw valuesError(`Cannot use "${file}": ${error.message}`, file);
  });
  if (info === undefined) return undefined;
  if (info.isSymbolicLink())
    throw valuesError(`Cannot use "${file}": it is a symlink; it must be a regular file owned by root, mode 600`, file);
  if (!info.isFile()) throw valuesError(`Cannot use "${file}": it is not a regular file`, file);
  if ((info.mode & 0o077) !== 0)
    throw valuesError(
      `Cannot use "${file}": mode ${(info.mode & 0o777).toString(8)} must be 600 (it holds deployment values)`,
      file,
    );
  if (process.getuid?.() === 0 && info.uid !== 0)
    throw valuesError(`Cannot use "${file}": owned by uid ${info.uid}, must be root`, file);
  // Read as Helm reads it: merge keys, aliases, tags and every document count, so `<<: {images: …}` sets images too.
  let keys: Set<string>;
  try {
    keys = helmValuesKeys(await readFileBounded(file));
  } catch (cause) {
    throw valuesError(`Cannot read "${file}": ${(cause as Error).message}`, file);
  }
  for (const key of HOST_OWNED_KEYS) {
    if (keys.has(key))
      throw valuesError(
        `Cannot use "${file}": it sets "${key}", which only the host writes (the verified pins in the last values file); remove "${key}" (read as Helm reads it: merge keys, aliases, tags and every document count)`,
        file,
      );
  }
  return file;
}

/** The last values file: the verified pins and the target they belong to. Pure. */
export function imagesValues(
  target: { readonly name: string; readonly commit: string },
  images: Readonly<Record<string, string>>,
): string {
  const sorted = Object.fromEntries(Object.entries(images).sort(([a], [b]) => a.localeCompare(b)));
  return `# Written by reconcile-deployment from the signed lock or channel; the last values file, so these pins win.\n${stringify({ release: { name: target.name, commit: target.commit }, images: sorted })}`;
}

/** HEPHAESTUS_CHART_PROFILE in order (`small small-16gib`). */
export function profilesOf(setting: string): string[] {
  // Stryker disable next-line Regex: splitting on single separators only adds empty names, which the filter drops
  return setting.split(/[\s,]+/).filter((p) => p !== '');
}

/** Every image the chart pins must be one of the signed pins, bound to its own variable. Pure. */
export function checkChartPins(
  chartVariables: readonly string[],
  pins: Readonly<Record<string, string>>,
  where: string,
): void {
  const missing = chartVariables.filter((v) => pins[v] === undefined);
  if (missing.length > 0)
    throw new ChartError(
      'chart-mismatch',
      `Cannot apply ${where}: the chart pins ${missing.map((m) => `"${m}"`).join(', ')}, which the signed ${where.startsWith('v') ? 'lock' : 'channel'} does not name`,
      { details: { missing } },
    );
}
