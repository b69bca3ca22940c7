import { stat } from 'node:fs/promises';
import { CATALOGUE_PATH } from '../catalogue/catalogue.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import { FingerprintError } from './fingerprint-error.ts';
import { parseCatalogueCached } from './catalogue-cache.ts';
import type { TreeSource } from './tree-source.ts';

/** `--rev` picks a commit's tree, else the working tree. */
export async function openSource(repo: string, rev: string | undefined): Promise<TreeSource> {
  const info = await stat(repo).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new FingerprintError('not-a-git-repo', `Cannot open repository "${repo}": no such folder`, {
      details: { repo },
    });
  }
  // Each source loads only its own code: a working-tree run needs no git-tree or cat-file modules, and back.
  if (rev === undefined) return (await import('./worktree-source.ts')).openWorktreeSource(repo);
  return (await import('./git-tree-source.ts')).openGitTreeSource(repo, rev);
}

/** The catalogue as the source holds it (a commit's own catalogue for `--rev`). */
export async function loadCatalogue(source: TreeSource): Promise<Catalogue> {
  const bytes = await source.readFile(CATALOGUE_PATH);
  if (bytes === undefined) {
    const where = source.kind === 'git' ? `commit ${source.id}` : `"${source.root}"`;
    const hint =
      source.kind === 'git'
        ? ''
        : ': write one (docs/adopting.md), or pass the repository that has it (--repo DIR; make … REPO=DIR; the example: examples/platform)';
    throw new FingerprintError(
      'missing-catalogue',
      `Cannot load catalogue: "${CATALOGUE_PATH}" is not in ${where}${hint}`,
      {
        details: { file: CATALOGUE_PATH, source: source.id },
      },
    );
  }
  return parseCatalogueCached(source.root, bytes, CATALOGUE_PATH);
}
