// `make mutation`'s last step: prints the mutation score of every mutated file and fails when one is below the floor.
import '../../scripts/lib/cli/require-node.ts';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { belowFloor, mutationScores, MutationReportError, parseMutationReport } from './mutation-scores.ts';

const USAGE = `Usage: node test/mutation/check-scores.ts [--report FILE] [--min PERCENT] [--json | --markdown]

Prints the mutation score of every file in Stryker's JSON report (default reports/mutation/mutation.json)
and exits 1 when a file scores below --min (default 95). Exit status: 0 every file at or above the floor,
1 a file below it, 2 usage error or an unreadable report. --markdown prints the table of docs/testing.md.
`;

function main(): number {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        report: { type: 'string', default: 'reports/mutation/mutation.json' },
        min: { type: 'string', default: '95' },
        json: { type: 'boolean', default: false },
        markdown: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const min = Number(values.min);
  if (!Number.isFinite(min) || min < 0 || min > 100) {
    process.stderr.write(`Cannot check scores: --min "${values.min}" is not a percentage from 0 to 100\n`);
    return 2;
  }
  let text: string;
  try {
    text = readFileSync(values.report, 'utf8');
  } catch (error) {
    process.stderr.write(
      `Cannot read mutation report "${values.report}": ${(error as Error).message} (run \`npx stryker run\` first)\n`,
    );
    return 2;
  }
  let scores;
  try {
    scores = mutationScores(parseMutationReport(text, values.report));
  } catch (error) {
    if (!(error instanceof MutationReportError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  const low = belowFloor(scores, min);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ schema: 1, min, files: scores, below: low.map((s) => s.file) })}\n`);
  } else if (values.markdown) {
    const rows = scores.map(
      (s) =>
        `| \`${s.file.replace(/^scripts\/lib\//, '')}\` | ${s.killed + s.timeout + s.survived + s.noCoverage + s.excluded} | ${s.killed + s.timeout} | ${s.survived + s.noCoverage} | ${s.excluded} | ${s.score.toFixed(2)}% |`,
    );
    process.stdout.write(
      `| file | mutants | killed | survived | ignored | score |\n|---|---|---|---|---|---|\n${rows.join('\n')}\n`,
    );
  } else {
    const rows = scores.map(
      (s) =>
        `${s.score.toFixed(2).padStart(7)}%  ${String(s.killed + s.timeout).padStart(4)} killed  ${String(s.survived).padStart(3)} survived  ${String(s.noCoverage).padStart(3)} no coverage  ${String(s.excluded).padStart(3)} ignored  ${s.file}`,
    );
    process.stdout.write(`Mutation score per file (floor ${min}%):\n${rows.join('\n')}\n`);
    for (const s of low)
      process.stderr.write(`Mutation score of ${s.file} is ${s.score.toFixed(2)}%, below the floor of ${min}%\n`);
  }
  return low.length === 0 ? 0 : 1;
}

process.exitCode = main();
