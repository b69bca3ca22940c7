#!/usr/bin/env node
// Proves the catalogue matches the Dockerfiles and the gitops manifests (issue 3; spec: catalogue-and-fingerprint.md; docs/check.md).
import './lib/cli/require-node.ts';
import './lib/cli/compile-cache.ts';
import { resolve } from 'node:path';
import { exitOnSavedHelp } from './lib/cli/saved-help.ts';
import { skipZodLocales } from './lib/errors/skip-zod-locales.ts';

// --help prints the text cmd-ts rendered when it was saved: it loads no cmd-ts.
await exitOnSavedHelp(new URL('./help/check-platform-gitops.json', import.meta.url), '', process.argv.slice(2));
// zod in English only, before the modules below load: its other languages are ~60 modules nothing here reads.
skipZodLocales();

// Every module below loads after the compile cache is on (static imports are compiled before any code runs).
await (await import('./lib/cli/prefetch-worktree.ts')).prefetchWorktree(process.argv);

// Loaded after the code cache is on: static imports would be compiled before it.
const { command, flag, option, optional, string } = await import('cmd-ts');
const { runCli } = await import('./lib/cli/run-cli.ts');
const { repoOption } = await import('./commands/common-options.ts');
const { checkPlatform, formatReport, reportJson } = await import('./lib/check/index.ts');
const { loadCatalogue, openSource } = await import('./lib/fingerprint/index.ts');

const cmd = command({
  name: 'check-platform-gitops',
  description:
    'Check that gitops/manifests/images.yaml matches the Dockerfiles and the gitops manifests (rules: docs/check.md).\n' +
    'Exit status: 0 no errors (warnings allowed), 1 errors found (or git/I/O failure), 2 usage, repository or unreadable catalogue.',
  args: {
    repo: repoOption('repository folder'),
    rev: option({
      long: 'rev',
      type: optional(string),
      description: "check this commit's tree instead of the working tree",
    }),
    json: flag({ long: 'json', description: 'print {"schema":1,"findings":[...]} as JSON' }),
  },
  handler: async ({ repo, rev, json }) => {
    const log = (line: string) => process.stderr.write(`${line}\n`);
    const source = await openSource(resolve(repo), rev);
    const catalogue = await loadCatalogue(source);
    log(`check: step=catalogue source=${source.id} images=${catalogue.images.length}`);
    const findings = await checkPlatform(source, catalogue, { log });
    process.stdout.write(
      json ? reportJson(findings) : formatReport(findings, { images: catalogue.images.length, source: source.id }),
    );
    return findings.some((f) => f.severity === 'error') ? 1 : 0;
  },
});

await runCli('check-platform-gitops', cmd);
