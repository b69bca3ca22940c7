// Reads an Application's source from a real Git repository at one commit (what Argo CD's repo-server does).
import { posix } from 'node:path';
import { gitPort } from '../../../scripts/lib/ports/git.ts';
import type { Git } from '../../../scripts/lib/ports/git.ts';
import { readGitBlob, resolveCommit } from '../../../scripts/lib/fingerprint/index.ts';

export interface TreeReader {
  readonly commit: string;
  /** undefined when the path is not a file at the commit. */
  readFile(path: string): Promise<string | undefined>;
  /** Names of the entries of a directory, or undefined when it is not one. */
  listDir(path: string): Promise<{ name: string; type: 'blob' | 'tree' }[] | undefined>;
}

export class SourceError extends Error {}

export async function resolveRevision(repo: string, revision: string | undefined): Promise<string> {
  const git = gitPort(repo);
  const rev = revision === undefined || revision === '' ? 'HEAD' : revision;
  try {
    return await resolveCommit(git, rev);
  } catch (error) {
    throw new SourceError(`unable to resolve '${rev}' to a commit SHA in ${repo}: ${(error as Error).message}`);
  }
}

export function openTree(repo: string, commit: string): TreeReader {
  const git: Git = gitPort(repo);
  const norm = (path: string) => posix.normalize(path).replace(/^\.\/?$/, '').replace(/^\/+|\/+$/g, '');
  return {
    commit,
    async readFile(path) {
      const blob = await readGitBlob(git, `${commit}:${norm(path)}`);
      return blob?.toString('utf8');
    },
    async listDir(path) {
      const result = await git.run(['ls-tree', '-z', `${commit}:${norm(path)}`]);
      if (result.code !== 0) return undefined;
      return result.stdout
        .toString('utf8')
        .split('\0')
        .filter((line) => line !== '')
        .map((line) => {
          const [meta, name] = line.split('\t') as [string, string];
          return { name, type: meta.split(' ')[1] === 'tree' ? 'tree' : 'blob' } as const;
        });
    },
  };
}
