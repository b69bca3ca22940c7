import { RELEASE_TAG } from './channel-schema.ts';

/** Orders vX.Y.Z tags numerically; negative when a < b. */
export function compareReleases(a: string, b: string): number {
  const pa = RELEASE_TAG.exec(a);
  const pb = RELEASE_TAG.exec(b);
  if (pa === null || pb === null) throw new Error(`Cannot compare releases "${a}" and "${b}": expected vX.Y.Z`);
  for (let i = 1; i <= 3; i += 1) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return d;
  }
  return 0;
}

/** The X of vX.Y.Z. */
export function majorOf(release: string): number {
  const parsed = RELEASE_TAG.exec(release);
  if (parsed === null) throw new Error(`Cannot read release "${release}": expected vX.Y.Z`);
  return Number(parsed[1]);
}
