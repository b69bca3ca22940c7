import { z } from 'zod';
import { describeZodIssues } from '../errors/zod-issues.ts';
import type { Deployments } from './deployments.ts';
import { PromotionError } from './promotion-error.ts';

export interface GitHubDeploymentOptions {
  /** owner/name. */
  readonly repository: string;
  readonly token: string;
  readonly apiUrl?: string;
}

const createdSchema = z.object({ id: z.number().int() });

/** GitHub's deployments API (`deployments: write`): one deployment per promotion that wrote a channel, then its status. */
export function gitHubDeployments(options: GitHubDeploymentOptions): Deployments {
  const api = options.apiUrl ?? 'https://api.github.com';
  const post = async (path: string, body: unknown): Promise<unknown> => {
    const url = `${api}${path}`;
    const response = await fetch(url, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: {
        authorization: `Bearer ${options.token}`,
        accept: 'application/vnd.github+json',
        'content-type': 'application/json',
        'x-github-api-version': '2022-11-28',
      },
    });
    if (!response.ok)
      throw new PromotionError('deployment', `Cannot record the deployment "${url}": HTTP ${response.status}`, {
        details: { url, status: response.status },
      });
    return response.json();
  };
  return {
    create: async (record) => {
      const path = `/repos/${options.repository}/deployments`;
      // required_contexts: [] because CI already passed for a promoted commit, and a release is a tag, not a branch head.
      const json = await post(path, {
        ref: record.ref,
        environment: record.environment,
        description: record.description,
        payload: record.payload,
        auto_merge: false,
        required_contexts: [],
        production_environment: record.productionEnvironment,
        transient_environment: false,
      });
      const parsed = createdSchema.safeParse(json);
      if (!parsed.success)
        throw new PromotionError(
          'deployment',
          `Cannot read the created deployment:\n${describeZodIssues(`${api}${path}`, json, parsed.error).join('\n')}`,
        );
      return parsed.data.id;
    },
    setStatus: async (id, environment, status) => {
      await post(`/repos/${options.repository}/deployments/${id}/statuses`, {
        state: status.state,
        description: status.description,
        environment,
        ...(status.logUrl === undefined ? {} : { log_url: status.logUrl }),
        auto_inactive: true,
      });
    },
  };
}
