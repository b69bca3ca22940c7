import { lstat, readFile, readdir } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { parseDocument } from 'yaml';
import { ChartError } from './chart-error.ts';
import type { ChartFiles } from './chart-archive.ts';
import { writeChartArchive } from './chart-archive.ts';

/** A chart folder's regular files as `<folder name>/<path>`; a symlink is refused (a package holds only its own files). */
export async function chartFilesFromDir(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const walk = async (current: string): Promise<void> => {
    for (const entry of (await readdir(current, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const full = join(current, entry.name);
      const info = await lstat(full);
      if (info.isSymbolicLink())
        throw new ChartError('archive', `Cannot package chart "${dir}": "${relative(dir, full)}" is a symlink`, {
          details: { path: full },
        });
      if (info.isDirectory()) await walk(full);
      else if (info.isFile()) files.set(`${basename(dir)}/${relative(dir, full)}`, await readFile(full));
    }
  };
  await walk(dir);
  return files;
}

/** `helm package --version V --app-version V`: Chart.yaml gets the release's version, then a deterministic `.tgz`. Pure. */
export function packageChart(
  files: ChartFiles,
  version: string,
): { archive: Buffer; name: string; metadata: Record<string, unknown> } {
  const chartFile = [...files.keys()].find((k) => /^[^/]+\/Chart\.yaml$/.test(k));
  if (chartFile === undefined) throw new ChartError('archive', 'Cannot package chart: no <name>/Chart.yaml');
  const doc = parseDocument(files.get(chartFile)?.toString('utf8') ?? '');
  doc.set('version', version);
  doc.set('appVersion', version);
  const out = new Map(files);
  out.set(chartFile, Buffer.from(doc.toString()));
  const metadata = doc.toJS() as Record<string, unknown>;
  return { archive: writeChartArchive(out), name: String(metadata.name), metadata };
}
