import type { Git } from '../ports/git.ts';
import { COMMIT_SHA } from '../channel/channel-schema.ts';
import type { AppliedRecord } from './applied-record.ts';

/** A ref per release the host applied, in its own repository: fetches (`refs/tags/*`) never move it, so a moved tag cannot. */
export const acceptedRef = (tag: string) => `refs/hephaestus/accepted/${tag}`;

/** The targets applied.json records with their commits: the applied one, then the previous one. */
export function recordedTargets(
  applied: AppliedRecord | undefined,
): { name: string; release?: string; commit: string }[] {
  if (applied === undefined) return [];
  const r = applied.record;
  const out: { name: string; release?: string; commit: string }[] = [];
  for (const t of [{ release: r.release, commit: r.commit }, r.previous ?? {}])
    if (t.commit !== undefined)
      out.push({
        name: t.release ?? t.commit,
        ...(t.release === undefined ? {} : { release: t.release }),
        commit: t.commit,
      });
  return out;
}

/**
 * The commit this host accepted for `tag` before (the document: "the commit the host accepts for it, not the tag's current
 * target"): its accepted ref, else applied.json's record of it; undefined for a release it never applied.
 */
export async function acceptedCommit(
  cache: Git,
  applied: AppliedRecord | undefined,
  tag: string,
): Promise<string | undefined> {
  const ref = await cache.run(['rev-parse', '--verify', '--quiet', `${acceptedRef(tag)}^{commit}`]);
  const fromRef = ref.stdout.toString('utf8').trim();
  if (ref.code === 0 && COMMIT_SHA.test(fromRef)) return fromRef;
  return recordedTargets(applied).find((t) => t.release === tag)?.commit;
}

/** Remembers that the host applied `tag` at `commit` (after applied.json is written). */
export async function recordAcceptedCommit(cache: Git, tag: string, commit: string): Promise<boolean> {
  return (await cache.run(['update-ref', acceptedRef(tag), commit])).code === 0;
}
