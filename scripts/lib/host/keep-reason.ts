// Disk pruning's kept set for release folders: which worktrees under releases/ a prune leaves in place.

/** What the host knows of one folder under releases/. */
export interface ReleaseFolder {
  readonly name: string;
  /** A worktree the cache repository knows (`git worktree list`). */
  readonly registered: boolean;
  readonly locked: boolean;
  /** Modified, untracked or ignored files: anything absent from the release (an ACME store, an operator's notes). */
  readonly holdsFiles: boolean;
  /** The `tooling` link points at it. */
  readonly tooling: boolean;
}

/** Why a release folder stays, or undefined when pruning may remove it. Pure. */
export function keepReason(folder: ReleaseFolder, applied: string, previous: string | undefined): string | undefined {
  if (folder.name === applied) return 'applied';
  if (folder.name === previous) return 'previous';
  if (folder.tooling) return 'tooling';
  if (!folder.registered) return 'not a worktree of the cache';
  if (folder.locked) return 'locked';
  if (folder.holdsFiles) return 'holds files absent from its release';
  return undefined;
}
