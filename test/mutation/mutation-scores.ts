// Per-file mutation scores from Stryker's JSON report (mutation-testing-report-schema): Stryker's own `thresholds.break`
// only judges the whole run, and every safety decision module must reach the floor on its own.
import { z } from 'zod';
import { describeZodIssues } from '../../scripts/lib/errors/zod-issues.ts';

const STATUSES = [
  'Killed',
  'Survived',
  'NoCoverage',
  'Timeout',
  'CompileError',
  'RuntimeError',
  'Ignored',
  'Pending',
] as const;

// Only what the score needs; the report carries more (locations, replacements, tests), which is passed through.
export const mutationReportSchema = z.looseObject({
  files: z.record(
    z.string(),
    z.looseObject({ mutants: z.array(z.looseObject({ id: z.string(), status: z.enum(STATUSES) })) }),
  ),
});

export type MutationReport = z.output<typeof mutationReportSchema>;

export interface FileScore {
  readonly file: string;
  readonly killed: number;
  readonly timeout: number;
  readonly survived: number;
  readonly noCoverage: number;
  /** Ignored (disabled by a comment with its reason), compile and runtime errors: not counted, as Stryker does. */
  readonly excluded: number;
  /** Detected / (detected + undetected) in percent; 100 for a file with no valid mutant. */
  readonly score: number;
}

export class MutationReportError extends Error {}

/** Parses the JSON text of a Stryker report; every bad field is named. */
export function parseMutationReport(text: string, file: string): MutationReport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new MutationReportError(`Cannot read mutation report "${file}": not JSON (${(cause as Error).message})`);
  }
  const parsed = mutationReportSchema.safeParse(json);
  if (!parsed.success)
    throw new MutationReportError(
      `Cannot read mutation report:\n${describeZodIssues(file, json, parsed.error).join('\n')}`,
    );
  return parsed.data;
}

/** One score per file, sorted by path, the way Stryker's clear-text table computes "% Mutation score" (covered or not). */
export function mutationScores(report: MutationReport): FileScore[] {
  return Object.entries(report.files)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([file, { mutants }]) => {
      const count = (...statuses: string[]) => mutants.filter((m) => statuses.includes(m.status)).length;
      const [killed, timeout, survived, noCoverage] = [
        count('Killed'),
        count('Timeout'),
        count('Survived'),
        count('NoCoverage'),
      ];
      const valid = killed + timeout + survived + noCoverage;
      const score = valid === 0 ? 100 : ((killed + timeout) / valid) * 100;
      return { file, killed, timeout, survived, noCoverage, excluded: mutants.length - valid, score };
    });
}

/** The files under `min` percent. */
export function belowFloor(scores: readonly FileScore[], min: number): FileScore[] {
  return scores.filter((s) => s.score < min);
}
