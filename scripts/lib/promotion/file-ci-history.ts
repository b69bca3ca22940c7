import { z } from 'zod';
import { COMMIT_SHA, imagesSchema } from '../channel/channel-schema.ts';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { readFileBounded } from '../signing/read-bounded.ts';
import type { CiHistory } from './ci-history.ts';
import { PromotionError } from './promotion-error.ts';

/** `{"builds": [{"commit", "completedAt", "images"}]}`: CI history kept as a file (air-gapped sites, and the e2e tests' double). */
export const ciHistoryFileSchema = z.strictObject({
  builds: z.array(
    z.strictObject({
      commit: z.string().regex(COMMIT_SHA),
      completedAt: z.iso.datetime({ offset: true }),
      images: imagesSchema,
    }),
  ),
});

export async function fileCiHistory(path: string): Promise<CiHistory> {
  let json: unknown;
  try {
    json = JSON.parse((await readFileBounded(path)).toString('utf8'));
  } catch (cause) {
    throw new PromotionError('ci-lookup', `Cannot read CI history "${path}": ${(cause as Error).message}`, {
      cause,
      details: { file: path },
    });
  }
  const parsed = ciHistoryFileSchema.safeParse(json);
  if (!parsed.success)
    throw new PromotionError(
      'ci-lookup',
      `Cannot read CI history:\n${describeZodIssues(path, json, parsed.error).join('\n')}`,
      { details: { file: path } },
    );
  const builds = parsed.data.builds;
  return {
    successfulMainBuilds: async () => builds.map(({ commit, completedAt }) => ({ commit, completedAt })),
    imagesFor: async (commit) => {
      const build = builds.find((b) => b.commit === commit);
      if (build === undefined)
        throw new PromotionError('images', `Cannot find images built for ${commit} in "${path}"`, {
          details: { commit },
        });
      return build.images;
    },
  };
}
