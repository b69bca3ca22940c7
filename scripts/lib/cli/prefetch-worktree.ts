import { peekOption } from './peek-option.ts';

/**
 * A warm run is mostly reading the index and the working tree's stat data: commands that read the working tree of
 * `--repo` (not a `--rev` commit) start that from their first line, while their modules load. The snapshot module
 * is imported here, not statically, so that it loads after the entry point has turned the compile cache on.
 */
export async function prefetchWorktree(argv: readonly string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) return; // help reads no tree
  if (argv.includes('--rev') || argv.some((a) => a.startsWith('--rev='))) return;
  const { prefetchGitSnapshot } = await import('../fingerprint/git-worktree-snapshot.ts');
  prefetchGitSnapshot(peekOption(argv, '--repo') ?? '.');
}
