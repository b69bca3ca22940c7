import { z } from 'zod';
import { describeZodIssues } from '../errors/zod-issues.ts';
import type { AttestationSource } from './attestation-source.ts';
import { PromotionError } from './promotion-error.ts';

export interface GitHubAttestationOptions {
  /** owner/name. */
  readonly repository: string;
  readonly token: string;
  readonly apiUrl?: string;
}

const answerSchema = z.object({ attestations: z.array(z.object({ bundle: z.record(z.string(), z.unknown()) })) });

/** GitHub's attestations API (`GET /repos/{repo}/attestations/{digest}`, needs `attestations: read`); 404 means none. */
export function gitHubAttestations(options: GitHubAttestationOptions): AttestationSource {
  const api = options.apiUrl ?? 'https://api.github.com';
  return {
    attestationsFor: async (digest) => {
      const url = `${api}/repos/${options.repository}/attestations/${encodeURIComponent(digest)}?per_page=100`;
      const response = await fetch(url, {
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: 'application/vnd.github+json',
          'x-github-api-version': '2022-11-28',
        },
      });
      if (response.status === 404) return [];
      if (!response.ok)
        throw new PromotionError('provenance', `Cannot look up attestations "${url}": HTTP ${response.status}`, {
          details: { url, status: response.status },
        });
      const json: unknown = await response.json();
      const parsed = answerSchema.safeParse(json);
      if (!parsed.success)
        throw new PromotionError(
          'provenance',
          `Cannot read attestations:\n${describeZodIssues(url, json, parsed.error).join('\n')}`,
          { details: { url } },
        );
      return parsed.data.attestations.map((a) => Buffer.from(JSON.stringify(a.bundle)));
    },
  };
}
