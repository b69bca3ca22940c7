#!/usr/bin/env node
// The GitHub Actions glue that is not a Dagger function: image map, OIDC token, release lock publication, promotion summary (docs/ci.md).
import './lib/cli/require-node.ts';
import './lib/cli/compile-cache.ts';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { exitAfterWriting, exitOnSavedHelp, readSavedHelp } from './lib/cli/saved-help.ts';

/** `ci.ts --help`: each command with its description. */
const usage = (commands: readonly (readonly [string, string | undefined])[]) =>
  `usage: ci.ts <command> [--help]\n\nThe GitHub Actions steps that are not Dagger functions (docs/ci.md). Commands:\n${commands
    .map(([key, description]) => `  ${key.padEnd(18)} ${description ?? ''}`)
    .join('\n')}\n\nExit status: 0 done, 1 failure, 2 usage or input error.\n`;

// `ci.ts --help` (from the saved descriptions) and `ci.ts <command> --help` (the text cmd-ts rendered when it was
// saved) load no cmd-ts.
const HELP = new URL('./help/ci.json', import.meta.url);
const [name, ...rest] = process.argv.slice(2);
const saved = readSavedHelp(HELP);
if (saved !== undefined && (name === '--help' || name === '-h' || name === 'help'))
  await exitAfterWriting(
    process.stdout,
    usage(Object.entries(saved.commands).map(([key, command]) => [key, command.description])),
    0,
  );
await exitOnSavedHelp(HELP, name ?? '', rest);
// Loaded after the help check: a help request loads none of them.
const { command, flag, option, optional, string } = await import('cmd-ts');
const { runCli } = await import('./lib/cli/run-cli.ts');
const { UsageError } = await import('./lib/errors/toolkit-error.ts');
const { RELEASE_TAG } = await import('./lib/channel/channel-schema.ts');
const { appendGitHubVariable } = await import('./lib/ci/github-files.ts');
const { imageMap } = await import('./lib/ci/image-map.ts');
const { requestOidcToken } = await import('./lib/ci/oidc-token.ts');
const { failedPromotionSummary, parsePromotionOutput, promotionSummary } = await import(
  './lib/ci/promotion-summary.ts'
);
const { publishReleaseLock } = await import('./lib/ci/publish-release-lock.ts');

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    throw new UsageError(`Cannot read ${what} "${file}": ${(cause as Error).message}`, { cause });
  }
}

const imageMapCommand = command({
  name: 'image-map',
  description:
    'Turn `dagger call build-changed` output into channel pins (HEPHAESTUS_IMAGE_* JSON) and attestation subjects',
  args: {
    built: option({
      long: 'built',
      type: optional(string),
      description: 'build-changed output JSON file {"<name>": "<repo>@sha256:…"}',
    }),
    builtEnv: option({
      long: 'built-env',
      type: optional(string),
      description: 'or: the environment variable holding that JSON (a step output)',
    }),
    builtOut: option({
      long: 'built-out',
      type: optional(string),
      description: 'also write the checked build-changed JSON here (release-lock --built reads it)',
    }),
    pinsOut: option({ long: 'pins-out', type: string, description: 'write the pins JSON here' }),
    githubOutput: option({
      long: 'github-output',
      type: optional(string),
      description: 'append pins= and subjects= (JSON) to this $GITHUB_OUTPUT file',
    }),
    summary: option({
      long: 'summary',
      type: optional(string),
      description: 'append a Markdown table to this $GITHUB_STEP_SUMMARY file',
    }),
  },
  handler: async (args) => {
    if ((args.built === undefined) === (args.builtEnv === undefined))
      throw new UsageError('Cannot map images: pass exactly one of --built FILE and --built-env NAME');
    const source = args.built ?? `environment variable ${args.builtEnv}`;
    const text =
      args.built !== undefined ? await readText(args.built, 'built images') : (process.env[args.builtEnv ?? ''] ?? '');
    const map = imageMap(text, source);
    if (args.builtOut !== undefined) await writeFile(args.builtOut, `${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    await writeFile(args.pinsOut, `${JSON.stringify(map.pins, null, 2)}\n`);
    if (args.githubOutput !== undefined) {
      await appendGitHubVariable(args.githubOutput, 'pins', JSON.stringify(map.pins));
      await appendGitHubVariable(args.githubOutput, 'subjects', JSON.stringify(map.subjects));
    }
    if (args.summary !== undefined) {
      const rows = Object.entries(map.pins).map(([k, v]) => `| \`${k}\` | \`${v}\` |`);
      await appendFile(
        args.summary,
        `## Images published\n\n| variable | pinned reference |\n|---|---|\n${rows.join('\n')}\n`,
      );
    }
    process.stdout.write(`${JSON.stringify(map.pins)}\n`);
  },
});

const oidcCommand = command({
  name: 'oidc-token',
  description:
    "Request the job's OIDC token (id-token: write) and export it, masked, as an environment variable of the following steps",
  args: {
    audience: option({
      long: 'audience',
      type: string,
      defaultValue: () => 'sigstore',
      defaultValueIsSerializable: true,
      description: 'token audience',
    }),
    githubEnv: option({ long: 'github-env', type: string, description: 'the $GITHUB_ENV file' }),
    name: option({
      long: 'name',
      type: string,
      defaultValue: () => 'SIGSTORE_ID_TOKEN',
      defaultValueIsSerializable: true,
      description: 'variable name',
    }),
  },
  handler: async (args) => {
    const token = await requestOidcToken(args.audience);
    // The mask command makes the runner redact the token from every later log line.
    process.stdout.write(`::add-mask::${token}\n`);
    await appendGitHubVariable(args.githubEnv, args.name, token);
  },
});

const publishLockCommand = command({
  name: 'publish-lock',
  description:
    'Commit the signed release lock (release-<tag>.json + .sigstore.json; with --chart the joint lock, the chart signature and the evidence manifest) under locks/ on deploy-state, once per release',
  args: {
    repo: option({ long: 'repo', type: string, description: 'deploy-state repository (URL or path)' }),
    branch: option({
      long: 'branch',
      type: string,
      defaultValue: () => 'deploy-state',
      defaultValueIsSerializable: true,
      description: 'branch',
    }),
    release: option({ long: 'release', type: string, description: 'release tag vX.Y.Z' }),
    dir: option({
      long: 'dir',
      type: string,
      description: 'folder with the lock files (dagger call release-lock … export --path)',
    }),
    chart: flag({
      long: 'chart',
      description:
        "publish a chart release: the joint lock, the chart's signature and the evidence manifest, each with its bundle",
    }),
  },
  handler: async (args) => {
    if (!RELEASE_TAG.test(args.release))
      throw new UsageError(`Cannot publish lock: --release "${args.release}" is not vX.Y.Z`);
    if (args.repo.startsWith('-'))
      throw new UsageError(`Cannot publish lock: --repo "${args.repo}" must not start with "-"`);
    const result = await publishReleaseLock({
      repository: args.repo,
      branch: args.branch,
      release: args.release,
      dir: args.dir,
      kind: args.chart ? 'chart' : 'compose',
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  },
});

const summaryCommand = command({
  name: 'promotion-summary',
  description: 'Append the Markdown job summary of a promotion (from promote.ts --json output) to $GITHUB_STEP_SUMMARY',
  args: {
    output: option({ long: 'output', type: string, description: 'file holding promote.ts --json output' }),
    requested: option({
      long: 'requested',
      type: string,
      description: 'the requested release or commit (the run title names it)',
    }),
    summary: option({ long: 'summary', type: string, description: 'the $GITHUB_STEP_SUMMARY file' }),
  },
  handler: async (args) => {
    // A failed promotion may leave no output, or an empty file: the summary then says so instead of failing too.
    const text = await readFile(args.output, 'utf8').catch(() => '');
    if (text.trim() === '') {
      await appendFile(args.summary, failedPromotionSummary(args.requested, `${args.output} is empty or missing`));
      return;
    }
    const output = parsePromotionOutput(text, args.output);
    await appendFile(args.summary, promotionSummary(output, args.requested));
  },
});

const COMMANDS = {
  'image-map': imageMapCommand,
  'oidc-token': oidcCommand,
  'publish-lock': publishLockCommand,
  'promotion-summary': summaryCommand,
};
const chosen = Object.entries(COMMANDS).find(([key]) => key === name)?.[1];
if (chosen !== undefined) await runCli(`ci ${name}`, chosen, rest);
else {
  const help = name === '--help' || name === '-h' || name === 'help';
  (help ? process.stdout : process.stderr).write(
    usage(Object.entries(COMMANDS).map(([key, command]) => [key, command.description])),
  );
  process.exitCode = help ? 0 : 2;
}
