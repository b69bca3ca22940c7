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

/**
 * `filtered-input`: one warning per image and `.gitattributes` line that converts some of its
 * input files. `fromGit` (check-attr's answer) decides which files are converted when given;
 * the rules only locate the line, falling back to the file itself for settings from outside the tree.
 */
export function checkFilteredInputs(sets: ReadonlyMap<ImageEntry, readonly SourceEntry[]>, rules: readonly AttributeRule[], fromGit: ReadonlyMap<string, string[]> | undefined): Finding[] {
  const out: Finding[] = [];
  for (const [image, files] of sets) {
    const groups = new Map<string, { source: AttributeSource; paths: string[] }>();
    for (const file of files) {
      const located = convertingAttributes(file.path, rules);
      const settings: AttributeSource[] =
        fromGit === undefined
          ? located
          : (fromGit.get(file.path) ?? []).map((setting) => located.find((s) => s.setting === setting) ?? { file: file.path, line: 1, setting });
      for (const source of settings) {
        const key = `${source.file}\0${source.line}\0${source.setting}`;
        const group = groups.get(key) ?? { source, paths: [] };
        group.paths.push(file.path);
        groups.set(key, group);
      }
    }
    for (const { source, paths } of groups.values()) {
      const outside = source.file === paths[0] && !source.file.endsWith('.gitattributes') ? ' (set outside this tree\'s .gitattributes files)' : '';
      out.push(
        finding('filtered-input', image.name, source.file, source.line, `"${source.setting}" converts ${paths.length} input file(s) of "${image.name}" (e.g. "${paths[0]}")${outside}: the fingerprint reads content as stored, so the working tree and the commit can disagree`),
      );
    }
  }
  return out;
}
