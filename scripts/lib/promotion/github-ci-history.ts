import { z } from 'zod';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { imagesSchema } from '../channel/channel-schema.ts';
import type { CiHistory } from './ci-history.ts';
import { PromotionError } from './promotion-error.ts';

export interface GitHubCiOptions {
  /** owner/name. */
  readonly repository: string;
  /** Workflow file name whose successful runs count, e.g. `ci.yml`. */
  readonly workflow: string;
  readonly token: string;
  readonly apiUrl?: string;
  /** Check run whose output text holds the image pins JSON (published by the build job). */
  readonly imagesCheck?: string;
}

const runsSchema = z.object({
  workflow_runs: z.array(z.object({ head_sha: z.string(), updated_at: z.string(), conclusion: z.string().nullable() })),
});
const checksSchema = z.object({
  check_runs: z.array(
    z.object({ conclusion: z.string().nullable(), output: z.object({ text: z.string().nullable() }) }),
  ),
});

/** The GitHub REST lookups: successful runs of the CI workflow on main, and the build's image pins from a check run. */
export function gitHubCiHistory(options: GitHubCiOptions): CiHistory {
  const api = options.apiUrl ?? 'https://api.github.com';
  const get = async <T>(path: string, schema: z.ZodType<T>): Promise<T> => {
    const url = `${api}${path}`;
    const response = await fetch(url, {
      headers: {
        authorization: `Bearer ${options.token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
      },
    });
    if (!response.ok)
      throw new PromotionError('ci-lookup', `Cannot look up "${url}": HTTP ${response.status}`, {
        details: { url, status: response.status },
      });
    const json: unknown = await response.json();
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw new PromotionError(
        'ci-lookup',
        `Cannot read GitHub response:\n${describeZodIssues(url, json, parsed.error).join('\n')}`,
      );
    return parsed.data;
  };
  return {
    successfulMainBuilds: async () => {
      const path = `/repos/${options.repository}/actions/workflows/${encodeURIComponent(options.workflow)}/runs?branch=main&event=push&status=success&per_page=100`;
      const runs = await get(path, runsSchema);
      return runs.workflow_runs
        .filter((r) => r.conclusion === 'success')
        .map((r) => ({ commit: r.head_sha, completedAt: r.updated_at }));
    },
    imagesFor: async (commit) => {
      const name = options.imagesCheck ?? 'hephaestus-images';
      const checks = await get(
        `/repos/${options.repository}/commits/${commit}/check-runs?check_name=${encodeURIComponent(name)}`,
        checksSchema,
      );
      const text = checks.check_runs.find((c) => c.conclusion === 'success')?.output.text;
      if (text === undefined || text === null)
        throw new PromotionError('images', `Cannot find check run "${name}" with image pins for ${commit}`, {
          details: { commit },
        });
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (cause) {
        throw new PromotionError('images', `Cannot read image pins of ${commit} from check run "${name}": not JSON`, {
          cause,
        });
      }
      const parsed = imagesSchema.safeParse(json);
      if (!parsed.success)
        throw new PromotionError(
          'images',
          `Cannot read image pins:\n${describeZodIssues(`check run ${name} of ${commit}`, json, parsed.error).join('\n')}`,
        );
      return parsed.data;
    },
  };
}
