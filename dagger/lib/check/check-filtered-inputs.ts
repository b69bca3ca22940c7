import type { ImageEntry } from '../catalogue/catalogue.ts';
import type { Git } from '../ports/git.ts';
import type { SourceEntry } from '../fingerprint/tree-source.ts';
import { convertingAttributes, CONVERTING_ATTRIBUTES } from './gitattributes.ts';
import type { AttributeRule, AttributeSource } from './gitattributes.ts';
import { finding } from './finding.ts';
import type { Finding } from './finding.ts';

/** What git itself says for a working tree: `path` → converting settings in effect (`filter=lfs`, `text`, …). */
export async function checkAttr(git: Git, paths: readonly string[]): Promise<Map<string, string[]> | undefined> {
  if (paths.length === 0) return new Map();
  const result = await git.run(['check-attr', '-z', '--stdin', ...CONVERTING_ATTRIBUTES], `${paths.join('\0')}\0`);
  if (result.code !== 0) return undefined;
  const fields = result.stdout.toString('utf8').split('\0');
  const out = new Map<string, string[]>();
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [path = '', name = '', value = ''] = fields.slice(i, i + 3);
    if (value === 'unspecified' || value === 'unset') continue;
    out.set(path, [...(out.get(path) ?? []), value === 'set' ? name : `${name}=${value}`]);
  }
  return out;
}

const quoted = (items: readonly string[], most: number) =>
  `${items
    .slice(0, most)
    .map((i) => `"${i}"`)
    .join(', ')}${items.length > most ? ` and ${items.length - most} more` : ''}`;

/**
 * `filtered-input`: one warning per attributes file that converts input files of any image (a vendored
 * `.gitattributes` of 30 lines is one finding, not one per image and line), at its first such line.
 * `fromGit` (check-attr's answer) decides which files are converted when given; the rules only locate
 * the line, falling back to the file itself for settings from outside the tree.
 */
export function checkFilteredInputs(
  sets: ReadonlyMap<ImageEntry, readonly SourceEntry[]>,
  rules: readonly AttributeRule[],
  fromGit: ReadonlyMap<string, string[]> | undefined,
): Finding[] {
  interface Group {
    readonly file: string;
    readonly images: Set<string>;
    readonly paths: Set<string>;
    readonly lines: Map<string, { line: number; setting: string; paths: Set<string> }>;
  }
  const groups = new Map<string, Group>();
  for (const [image, files] of sets) {
    for (const file of files) {
      const located = convertingAttributes(file.path, rules);
      const settings: AttributeSource[] =
        fromGit === undefined
          ? located
          : (fromGit.get(file.path) ?? []).map(
              (setting) => located.find((s) => s.setting === setting) ?? { file: file.path, line: 1, setting },
            );
      for (const source of settings) {
        const group = groups.get(source.file) ?? {
          file: source.file,
          images: new Set(),
          paths: new Set(),
          lines: new Map(),
        };
        group.images.add(image.name);
        group.paths.add(file.path);
        const key = `${source.line}\0${source.setting}`;
        const at = group.lines.get(key) ?? { line: source.line, setting: source.setting, paths: new Set() };
        at.paths.add(file.path);
        group.lines.set(key, at);
        groups.set(source.file, group);
      }
    }
  }
  return [...groups.values()].map((group) => {
    const lines = [...group.lines.values()].sort((a, b) => a.line - b.line || a.setting.localeCompare(b.setting));
    const images = [...group.images].sort();
    const paths = [...group.paths].sort();
    const first = paths[0] ?? '';
    const outside =
      group.file === first && !group.file.endsWith('.gitattributes')
        ? " (set outside this tree's .gitattributes files)"
        : '';
    const settings = lines.map(
      (l) => `"${l.setting}" (line ${l.line}, ${l.paths.size} file${l.paths.size === 1 ? '' : 's'})`,
    );
    return finding(
      'filtered-input',
      images[0] ?? '-',
      group.file,
      lines[0]?.line ?? 1,
      `${settings.slice(0, 5).join(', ')}${settings.length > 5 ? ` and ${settings.length - 5} more settings` : ''} convert ${paths.length} input file(s) of ${images.length === 1 ? 'image' : `${images.length} images`} ${quoted(images, 5)} (e.g. "${first}")${outside}: the fingerprint reads content as stored, so the working tree and the commit can disagree`,
    );
  });
}
