// The image references a release lock names: what pruning keeps for the applied and previous releases. Pure.

/** The `HEPHAESTUS_IMAGE_*` references of lock env files. */
export function lockImages(locks: readonly (Readonly<Record<string, string>> | undefined)[]): string[] {
  return [
    ...new Set(
      locks.flatMap((lock) =>
        Object.entries(lock ?? {})
          .filter(([k, v]) => k.startsWith('HEPHAESTUS_IMAGE_') && v.includes('@'))
          .map(([, v]) => v),
      ),
    ),
  ];
}
