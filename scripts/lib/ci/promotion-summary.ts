import { z } from 'zod';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { CiError } from './ci-error.ts';

/** `promote.ts --json` output, as the summary reads it. */
export const promotionOutputSchema = z.object({
  action: z.enum(['write', 'skip']),
  reason: z.string().nullable(),
  message: z.string(),
  environment: z.string(),
  version: z.number().int().nullable(),
  expires: z.string().nullable(),
  target: z.union([z.object({ release: z.string() }), z.object({ commit: z.string() })]).nullable(),
  deployStateCommit: z.string().nullable(),
  // Present when promote.ts ran with --check-version: what the public webapp reported.
  versionCheck: z
    .object({ url: z.string(), expected: z.string(), seen: z.string().nullable(), ok: z.boolean() })
    .nullable()
    .optional(),
});

export type PromotionOutput = z.output<typeof promotionOutputSchema>;

export function parsePromotionOutput(text: string, source: string): PromotionOutput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new CiError('promotion-output', `Cannot read promotion output "${source}": not JSON`, {
      cause,
      details: { file: source },
    });
  }
  const parsed = promotionOutputSchema.safeParse(json);
  if (!parsed.success)
    throw new CiError(
      'promotion-output',
      `Cannot read promotion output:\n${describeZodIssues(source, json, parsed.error).join('\n')}`,
      { details: { file: source } },
    );
  return parsed.data;
}

// The spec's boundary: the job summary names what a promotion does not establish.
const BOUNDARY = [
  '**What this does not tell you.** A promotion signs the channel on deploy-state; each host applies it on its next tick.',
  'This job does not fetch host metrics: host metrics (`hephaestus_deploy_info`) and logs remain the record of what each host runs.',
  'A matching frontend version does not establish server, worker, webhook, database, NATS, or integration readiness.',
].join('\n');

/** The Markdown job summary of one promotion: requested vs promoted target, channel version, deploy-state commit, and the boundary. */
export function promotionSummary(output: PromotionOutput, requested: string): string {
  const promoted =
    output.target === null ? '—' : 'release' in output.target ? output.target.release : output.target.commit;
  const rows = [
    ['environment', output.environment],
    ['requested', requested],
    ['promoted', promoted],
    ['outcome', output.action === 'write' ? 'written and signed' : `left alone (${output.reason ?? 'rule'})`],
    ['channel version', output.version === null ? '—' : String(output.version)],
    ['expires', output.expires ?? '—'],
    ['deploy-state commit', output.deployStateCommit ?? '—'],
    ...(output.versionCheck == null
      ? []
      : [
          [
            'webapp version',
            output.versionCheck.ok
              ? `reported ${output.versionCheck.seen}`
              : `failed: reported ${output.versionCheck.seen ?? 'nothing'}, expected ${output.versionCheck.expected}`,
          ],
        ]),
  ];
  const table = ['| | |', '|---|---|', ...rows.map(([k, v]) => `| ${k} | \`${v}\` |`)].join('\n');
  return `## Promotion of ${output.environment}\n\n${output.message}\n\n${table}\n\n${BOUNDARY}\n`;
}

/** The summary of a promotion that failed before it wrote its output (no `promote.ts --json` to read): the request and why. */
export function failedPromotionSummary(requested: string, why: string): string {
  const table = ['| | |', '|---|---|', `| requested | \`${requested}\` |`, '| outcome | `failed` |'].join('\n');
  return `## Promotion failed\n\nThe promotion stopped before it reported an outcome (${why}); its log says why.\n\n${table}\n\n${BOUNDARY}\n`;
}
