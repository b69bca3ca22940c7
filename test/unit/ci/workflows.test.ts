// Every GitHub workflow validates against the workflow schema, pins its actions by commit, and calls only what exists here.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCommands } from '../../support/workflows/run-commands.ts';
import { PROJECT_ROOT } from '../../support/run-script.ts';

const DIR = join(PROJECT_ROOT, '.github', 'workflows');
const FILES = readdirSync(DIR)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
const read = (file: string) => readFileSync(join(DIR, file), 'utf8');

interface Step {
  readonly uses?: string;
  readonly run?: string;
  readonly name?: string;
}
interface Workflow {
  readonly name: string;
  readonly 'run-name'?: string;
  readonly on: Record<string, unknown>;
  readonly jobs: Record<string, { steps?: Step[] }>;
}
/** GitHub's own workflow parser and schema (the one behind the Actions VS Code extension): every error it reports. */
async function validateWorkflow(name: string, content: string): Promise<string[]> {
  const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  if (parsed.value === undefined) return errors;
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  return [...errors, ...(template.errors ?? []).map((e) => e.Message)];
}
const workflow = (file: string) => parse(read(file)) as Workflow;
const steps = (file: string) => Object.values(workflow(file).jobs).flatMap((job) => job.steps ?? []);

const MAKE_TARGETS = new Set(
  [...readFileSync(join(PROJECT_ROOT, 'Makefile'), 'utf8').matchAll(/^([a-zA-Z0-9_-]+):/gm)].map((m) => m[1]),
);
const NPM_SCRIPTS = new Set(
  Object.keys(
    (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
      .scripts,
  ),
);
/** Tools the GitHub-hosted runner provides that a step may call besides the repository's own: only the GitHub CLI. */
const RUNNER_TOOLS = new Set(['gh']);

function isExecutable(path: string): boolean {
  const file = join(PROJECT_ROOT, path);
  return existsSync(file) && (statSync(file).mode & 0o111) !== 0;
}

/** Why a command is not something this repository (or the runner) provides; undefined when it is. */
function missing(command: readonly string[]): string | undefined {
  const [program, first, second] = command;
  // sudo may only run something this repository provides.
  if (program === 'sudo') return command.length > 1 ? missing(command.slice(1)) : 'sudo runs nothing';
  if (program !== undefined && /^\.?[\w-]*\//.test(program) && program !== 'node_modules/.bin/node')
    return isExecutable(program) ? undefined : `"${program}" is not an executable file of the repository`;
  if (program === 'make')
    return first !== undefined && MAKE_TARGETS.has(first) ? undefined : `make target "${first}" is not in the Makefile`;
  if (program === 'node_modules/.bin/node')
    return first !== undefined && /^scripts\/[\w/-]+\.ts$/.test(first) && existsSync(join(PROJECT_ROOT, first))
      ? undefined
      : `script "${first}" does not exist`;
  if (program === 'npm')
    return first === 'ci' || (first === 'run' && second !== undefined && NPM_SCRIPTS.has(second))
      ? undefined
      : `npm ${first} ${second ?? ''} is not "npm ci" or a package.json script`;
  return RUNNER_TOOLS.has(program ?? '')
    ? undefined
    : `"${program}" is neither a make target, a repository script nor a runner tool`;
}

describe('GitHub workflows', () => {
  it('are the CI, release and promotion workflows (promotion also refreshes)', () => {
    expect(FILES).toEqual(['ci.yml', 'promote.yml', 'release.yml']);
  });

  it.each(FILES)('%s validates against the GitHub workflow schema (@actions/workflow-parser)', async (file) => {
    expect(await validateWorkflow(file, read(file))).toEqual([]);
  });

  it('the validator does reject an unknown permission, step key and expression', async () => {
    const broken =
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    permissions: { bogus: write }\n    steps:\n      - uses: actions/checkout@v4\n        bogus: 1\n      - run: echo ${{ nope( }}\n';
    const errors = await validateWorkflow('broken.yml', broken);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Line: 5.*Unexpected value 'bogus'/),
        expect.stringMatching(/Line: 8.*Unexpected value 'bogus'/),
      ]),
    );
    expect(errors.length).toBeGreaterThanOrEqual(3);
  });

  it.each(FILES)('%s pins every third-party action by a full commit SHA', (file) => {
    const unpinned = steps(file).flatMap((s) =>
      s.uses === undefined || s.uses.startsWith('./') || /@[0-9a-f]{40}$/.test(s.uses) ? [] : [s.uses],
    );
    expect(unpinned).toEqual([]);
    expect(steps(file).filter((s) => s.uses !== undefined).length).toBeGreaterThan(0);
  });

  it.each(FILES)(
    "%s's run steps call only make targets, repository scripts and executables, npm ci and the GitHub CLI",
    (file) => {
      const problems = steps(file).flatMap((s) =>
        s.run === undefined ? [] : runCommands(s.run).flatMap((c) => missing(c) ?? []),
      );
      expect(problems).toEqual([]);
    },
  );

  it.each(FILES)('%s titles its runs', (file) => {
    expect(workflow(file)['run-name']).toMatch(/\$\{\{/);
  });

  it('promotion names the requested commit in its run title', () => {
    expect(workflow('promote.yml')['run-name']).toContain('github.event.workflow_run.head_sha');
    expect(workflow('promote.yml')['run-name']).toContain('inputs.commit');
  });
});

describe('CI and promotion agree on one mechanism', () => {
  it("promotion waits for the CI workflow by its name and counts runs of CI's file", () => {
    const trigger = workflow('promote.yml').on.workflow_run as { workflows: string[]; branches: string[] };
    expect(trigger).toMatchObject({ workflows: [workflow('ci.yml').name], branches: ['main'] });
    expect(read('promote.yml')).toContain('--ci-workflow ci.yml');
  });

  it('CI on main writes the image pins as the check run promotion reads (hephaestus-images), after attesting them', () => {
    const ci = workflow('ci.yml');
    const record = ci.jobs['record-images'] as { needs: string[]; steps: Step[] };
    expect(record.needs).toEqual(['publish', 'attest']);
    expect(record.steps.map((s) => s.run).join('\n')).toMatch(/check-runs[\s\S]*-f name=hephaestus-images/);
    expect(read('promote.yml')).toContain('check_name=hephaestus-images');
  });

  it('CI attests the build provenance of every published digest', () => {
    const attest = workflow('ci.yml').jobs.attest as unknown as {
      strategy: { matrix: { image: string } };
      steps: { uses: string; with: Record<string, unknown> }[];
    };
    expect(attest.strategy.matrix.image).toContain('needs.publish.outputs.subjects');
    expect(attest.steps[0]).toMatchObject({
      uses: expect.stringMatching(/^actions\/attest-build-provenance@/),
      with: { 'subject-digest': '${{ matrix.image.digest }}', 'push-to-registry': true },
    });
  });
});

describe('promotion as hosts trust it', () => {
  // Keyless signing takes the workflow file as the certificate's SAN: hosts pin promote.yml's, so only promote.yml signs channels.
  it('only promote.yml runs promote.ts (promotions and the daily refresh), so every channel carries the SAN hosts pin', () => {
    const signing = FILES.filter((f) => steps(f).some((s) => s.run?.includes('scripts/promote.ts')));
    expect(signing).toEqual(['promote.yml']);
    const on = workflow('promote.yml').on as Record<string, unknown>;
    expect(on.schedule).toEqual([{ cron: '17 3 * * *' }]);
    const jobs = workflow('promote.yml').jobs as Record<string, { if?: string; steps: Step[] }>;
    expect(jobs.refresh?.steps.map((s) => s.run ?? '').join('\n')).toMatch(/scripts\/promote\.ts refresh/);
    expect(read('promote.yml')).not.toMatch(/refresh-channels/);
  });

  it("manual and automatic promotions wait for the environment's public webapp version (HEPHAESTUS_VERSION_URLS)", () => {
    const jobs = workflow('promote.yml').jobs as Record<string, { steps: Step[] }>;
    const runs = (jobs.promote?.steps ?? []).filter((s) => s.run?.includes('scripts/promote.ts')).map((s) => s.run);
    expect(runs).toHaveLength(2);
    for (const run of runs) expect(run).toMatch(/HEPHAESTUS_VERSION_URLS[^\n]*--check-version "\$VERSION_URL"/);
  });

  it('the job summary is written whatever the promotion did, a failed one included', () => {
    const jobs = workflow('promote.yml').jobs as Record<string, { steps: (Step & { if?: string })[] }>;
    for (const job of ['promote', 'refresh']) {
      const summary = jobs[job]?.steps.find((s) => s.name === 'Job summary');
      expect(summary?.if, job).toBe('always()');
    }
  });
});

describe('the release workflow produces a chart release', () => {
  it('pushes the chart with credentials from the environment, signs it, writes the joint lock and the evidence, publishes all', () => {
    const job = workflow('release.yml').jobs.chart as unknown as {
      needs: string[];
      permissions: Record<string, string>;
      steps: (Step & { env?: Record<string, string> })[];
    };
    expect(job.needs).toEqual(['build', 'attest']);
    expect(job.permissions).toMatchObject({ packages: 'write', 'id-token': 'write', contents: 'write' });
    const runs = job.steps.map((s) => s.run ?? '').join('\n');
    expect(runs).toMatch(
      /prepare-release-chart\.ts --produce .*--username "\$ACTOR" --password-env GITHUB_TOKEN --keyless/s,
    );
    expect(runs).not.toMatch(/--password[ =]/);
    expect(runs).toMatch(/prepare-release-lock\.ts --produce .*--chart chart-release\/chart\.json/s);
    expect(runs).toMatch(/prepare-release-chart\.ts --evidence --release "\$RELEASE" --dir chart-release --keyless/);
    expect(runs).toMatch(/ci\.ts publish-lock --chart --release "\$RELEASE" --dir chart-release/);
  });
});

describe('runCommands (the run-step reader)', () => {
  it('splits lists and pipes, drops redirections and env assignments, and keeps flags from expressions', () => {
    expect(
      runCommands(
        "A=1 make test && gh api x > out.json\nnode_modules/.bin/node scripts/ci.ts ${{ inputs.freeze && '--freeze' || '' }} | gh y",
      ),
    ).toEqual([
      ['make', 'test'],
      ['gh', 'api', 'x'],
      ['node_modules/.bin/node', 'scripts/ci.ts', '--freeze'],
      ['gh', 'y'],
    ]);
  });

  it('reports a command the repository does not have', () => {
    expect(runCommands('make nope').map(missing)).toEqual(['make target "nope" is not in the Makefile']);
    expect(runCommands('node_modules/.bin/node scripts/absent.ts').map(missing)).toEqual([
      'script "scripts/absent.ts" does not exist',
    ]);
    expect(runCommands('sudo .ci/run && sudo .ci/absent && sudo rm -rf x').map(missing)).toEqual([
      undefined,
      '".ci/absent" is not an executable file of the repository',
      '"rm" is neither a make target, a repository script nor a runner tool',
    ]);
    expect(runCommands('curl https://x | sh').map(missing)).toEqual([
      '"curl" is neither a make target, a repository script nor a runner tool',
      '"sh" is neither a make target, a repository script nor a runner tool',
    ]);
  });
});
