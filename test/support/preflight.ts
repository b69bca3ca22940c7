// The test suites' globalSetup: every program `make test` runs (scripts/install-tools.tsv, the installer's own list)
// is looked for before the first test, so a missing one is one line naming it and its package, not a stack trace
// in the middle of a suite. The e2e project also needs a Docker Engine that answers.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { missingToolLine, parseToolList, probeTool, toolsFor } from '../../scripts/lib/tools/index.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const LIST = join(ROOT, 'scripts/install-tools.tsv');

/** The lines to print, one per missing program (and one for a silent Docker Engine); empty when all is here. */
export async function preflightProblems(engine: boolean, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const tools = toolsFor(parseToolList(readFileSync(LIST, 'utf8'), relative(ROOT, LIST)), 'test');
  const context = { exec, env };
  const [results, info] = await Promise.all([
    Promise.all(tools.map(async (tool) => ({ tool, result: await probeTool(tool, context) }))),
    engine ? exec('docker', ['info'], { env, timeoutMs: 30_000 }).catch(() => undefined) : undefined,
  ]);
  const lines = results
    .filter(({ result }) => result.state !== 'present')
    .map((r) => missingToolLine(r.tool, r.result));
  const dockerHere = results.some(({ tool, result }) => tool.program === 'docker' && result.state === 'present');
  if (engine && dockerHere && info?.code !== 0)
    lines.push("Docker Engine does not answer 'docker info': start dockerd");
  return lines;
}

export default async function preflight(project: TestProject): Promise<void> {
  const problems = await preflightProblems(project.name === 'e2e');
  if (problems.length === 0) return;
  for (const line of problems) process.stderr.write(`preflight (${project.name}): ${line}\n`);
  process.stderr.write(
    `preflight (${project.name}): as root on Debian, scripts/install-tools.sh test installs and starts what is missing ` +
      '(--dry-run shows what it would do)\n',
  );
  process.exit(2); // before any test: a thrown error here would print a stack trace
}
