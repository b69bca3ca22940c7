import { prefetchGitSnapshot } from '../fingerprint/git-worktree-snapshot.ts';
import { peekOption } from './peek-option.ts';

/**
 * A warm run is mostly git's stat walk: commands that read the working tree of `--repo` (not a
 * `--rev` commit) start it from their first line, while their modules load.
 */
export function prefetchWorktree(argv: readonly string[]): void {
  if (argv.includes('--help') || argv.includes('-h')) return; // help reads no tree: four git processes would only slow it
  if (argv.includes('--rev') || argv.some((a) => a.startsWith('--rev='))) return;
  prefetchGitSnapshot(peekOption(argv, '--repo') ?? '.');
}
