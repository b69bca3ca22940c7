export type FileMode = '100644' | '100755' | '120000';

/** The fingerprint's mode of a file on disk: symlink, else owner-execute bit, else plain. */
export function modeFromStat(stat: { isSymbolicLink(): boolean; mode: number }): FileMode {
  if (stat.isSymbolicLink()) return '120000';
  return (stat.mode & 0o100) !== 0 ? '100755' : '100644';
}

/** Git index and tree modes as the fingerprint names them; undefined for what is not a file. */
export function modeFromGit(mode: string): FileMode | undefined {
  if (mode === '100644' || mode === '100664') return '100644';
  if (mode === '100755') return '100755';
  if (mode === '120000') return '120000';
  return undefined;
}
