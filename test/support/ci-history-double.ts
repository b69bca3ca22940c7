import type { CiBuild, CiHistory } from '../../scripts/lib/promotion/ci-history.ts';
import type { History } from '../../scripts/lib/promotion/plan-promotion.ts';
import { PromotionError } from '../../scripts/lib/promotion/promotion-error.ts';

/** Test double of the GitHub lookups: successful builds of main with their image pins, and a record of what was asked. */
export function ciHistoryDouble(
  builds: readonly (CiBuild & { images?: Record<string, string> })[],
): CiHistory & { imageLookups: string[]; buildLookups: number } {
  const imageLookups: string[] = [];
  const double = {
    imageLookups,
    buildLookups: 0,
    successfulMainBuilds: async () => {
      double.buildLookups += 1;
      return builds.map(({ commit, completedAt }) => ({ commit, completedAt }));
    },
    imagesFor: async (commit: string) => {
      imageLookups.push(commit);
      const build = builds.find((b) => b.commit === commit);
      if (build?.images === undefined) throw new PromotionError('images', `no images for ${commit}`);
      return build.images;
    },
  };
  return double;
}

/** History of a linear main (`order` oldest first) plus tags; an unknown commit fails like a missing object would. */
export function linearHistory(order: readonly string[], tags: Readonly<Record<string, string>> = {}): History {
  const index = (c: string) => {
    const i = order.indexOf(c);
    if (i < 0) throw new PromotionError('history', `unknown commit ${c}`);
    return i;
  };
  return {
    isAncestor: async (a, b) => index(a) <= index(b),
    releaseCommit: async (tag) => {
      const commit = tags[tag];
      if (commit === undefined) throw new PromotionError('unknown-target', `unknown tag ${tag}`, { exitCode: 2 });
      return commit;
    },
    onMain: async (commit) => order.includes(commit),
  };
}

/** CI history whose GitHub lookup fails (outage, rate limit): automatic promotion must carry on with the requested commit. */
export function failingCiHistory(message = 'HTTP 503 from api.github.com'): CiHistory & { imageLookups: string[] } {
  const imageLookups: string[] = [];
  return {
    imageLookups,
    successfulMainBuilds: async () => {
      throw new PromotionError('ci-lookup', message);
    },
    imagesFor: async (commit) => {
      imageLookups.push(commit);
      throw new PromotionError('ci-lookup', message);
    },
  };
}
