// `takeover logs`: the last lines of each local runtime's log (`.local/metallo/<target>/<image>.log`).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface LogSnapshot {
  readonly image: string;
  readonly file: string;
  readonly lines: readonly string[];
}

export async function logSnapshot(dir: string, images: readonly string[], lines: number): Promise<LogSnapshot[]> {
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => n.endsWith('.log'))
    .map((n) => n.slice(0, -4))
    .sort();
  const chosen = images.length === 0 ? names : images;
  const out: LogSnapshot[] = [];
  for (const image of chosen) {
    const file = join(dir, `${image}.log`);
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    out.push({
      image,
      file,
      lines: text
        .split('\n')
        .filter((l, i, all) => !(l === '' && i === all.length - 1))
        .slice(-lines),
    });
  }
  return out;
}
