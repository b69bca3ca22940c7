#!/usr/bin/env node
// Fingerprints catalogue images from the working tree or a commit (spec: catalogue-and-fingerprint.md).
import './lib/cli/require-node.ts';
import './lib/cli/compile-cache.ts';
import './lib/cli/small-young-generation.ts';
import { resolve } from 'node:path';
import { exitOnSavedHelp } from './lib/cli/saved-help.ts';
import { skipZodLocales } from './lib/errors/skip-zod-locales.ts';

// --help prints the text cmd-ts rendered when it was saved: it loads no cmd-ts.
await exitOnSavedHelp(new URL('./help/fingerprint.json', import.meta.url), '', process.argv.slice(2));
// zod in English only, before the modules below load: its other languages are ~60 modules nothing here reads.
skipZodLocales();

// Every module below loads after the compile cache is on (static imports are compiled before any code runs).
await (await import('./lib/cli/prefetch-worktree.ts')).prefetchWorktree(process.argv);

// Loaded after the code cache is on (static imports would be compiled before it); the library only when a
// handler runs, so usage errors load cmd-ts alone.
const { command, option, optional, string, multioption, array, flag } = await import('cmd-ts');
const { runCli } = await import('./lib/cli/run-cli.ts');
const { repoOption } = await import('./commands/common-options.ts');

const short = async (encoding: string) =>
  (await import('./lib/fingerprint/encoding.ts')).sha256Hex(encoding).slice(0, 12);

/** The encoding `--since` compares with: the last `--explain` run, or the image at a commit (say a receipt's). */
async function baseline(repo: string, image: string, since: string): Promise<{ encoding: string; label: string }> {
  const { UsageError } = await import('./lib/errors/toolkit-error.ts');
  const { fingerprintImages } = await import('./lib/fingerprint/fingerprint-images.ts');
  const { loadCatalogue, openSource } = await import('./lib/fingerprint/open-source.ts');
  if (since === 'last') {
    const encoding = await (await import('./lib/fingerprint/last-explained.ts')).readLastExplained(repo, image);
    if (encoding === undefined)
      throw new UsageError(
        `Cannot explain "${image}" since the last run: no earlier --explain of it in "${repo}"; run --explain once, or pass --since REV`,
      );
    return { encoding, label: 'the last --explain' };
  }
  const source = await openSource(repo, since);
  const [result] = await fingerprintImages(source, await loadCatalogue(source), { images: [image], encodings: true });
  return { encoding: result?.encoding ?? '', label: `${since} (${source.id.slice(0, 12)})` };
}

const cmd = command({
  name: 'fingerprint',
  description:
    'Print the fingerprint/v1 of every catalogue image (gitops/manifests/images.yaml).\n' +
    'Exit status: 0 done, 1 failure (git or I/O), 2 usage, catalogue or repository error.',
  args: {
    repo: repoOption('repository folder'),
    rev: option({
      long: 'rev',
      type: optional(string),
      description: "hash this commit's tree instead of the working tree",
    }),
    image: multioption({
      long: 'image',
      type: array(string),
      description: 'catalogue name (repeatable; default: all)',
    }),
    explain: option({
      long: 'explain',
      type: optional(string),
      description: "print this image's fingerprint/v1 text, one line per file",
    }),
    since: option({
      long: 'since',
      type: optional(string),
      description:
        "with --explain: print what changed since REV (a commit, e.g. a receipt's) or 'last' (the last --explain run)",
    }),
    json: flag({ long: 'json', description: 'print {"schema":1,"source","images"} as JSON' }),
  },
  handler: async ({ repo, rev, image, explain, since, json }) => {
    const { UsageError } = await import('./lib/errors/toolkit-error.ts');
    // The modules this run needs, not the library's index: a warm run loads neither hashing nor git-tree code.
    const { fingerprintImages, selectImages } = await import('./lib/fingerprint/fingerprint-images.ts');
    const { loadCatalogue, openSource } = await import('./lib/fingerprint/open-source.ts');
    const { fingerprintReport } = await import('./lib/fingerprint/fingerprint-report.ts');
    const { hashProgress } = await import('./lib/cli/progress.ts');
    if (since !== undefined && explain === undefined)
      throw new UsageError('--since needs --explain NAME: it explains one image');
    const source = await openSource(resolve(repo), rev);
    const catalogue = await loadCatalogue(source);
    const names = explain !== undefined ? [explain] : image;
    selectImages(catalogue, names); // unknown names fail before any hashing
    const results = await fingerprintImages(source, catalogue, {
      images: names,
      progress: hashProgress('hashing'),
      encodings: explain !== undefined,
    });
    if (explain !== undefined && since !== undefined) {
      const now = results[0]?.encoding ?? '';
      const before = await baseline(resolve(repo), explain, since);
      const { explainChange } = await import('./lib/fingerprint/explain-change.ts');
      const changes = explainChange(before.encoding, now);
      const head =
        changes.length === 0
          ? `${explain}: unchanged since ${before.label}`
          : `${explain}: ${await short(before.encoding)} -> ${await short(now)} since ${before.label}`;
      process.stdout.write(`${[head, ...changes.map((c) => `  ${c}`)].join('\n')}\n`);
      await (await import('./lib/fingerprint/last-explained.ts')).saveLastExplained(resolve(repo), explain, now);
      return 0;
    }
    if (explain !== undefined) {
      process.stdout.write(results[0]?.encoding ?? '');
      await (await import('./lib/fingerprint/last-explained.ts')).saveLastExplained(
        resolve(repo),
        explain,
        results[0]?.encoding ?? '',
      );
      if (json) process.stderr.write('fingerprint: --explain prints the encoding text; --json is ignored\n');
      return 0;
    }
    if (json) {
      process.stdout.write(fingerprintReport(source.id, results));
      return 0;
    }
    process.stdout.write(`source: ${source.id}\n`);
    const { formatTable } = await import('./lib/cli/table.ts');
    process.stdout.write(
      formatTable(
        ['IMAGE', 'FILES', 'FINGERPRINT'],
        results.map((r) => [r.name, String(r.files), r.fingerprint]),
      ),
    );
    return 0;
  },
});

await runCli('fingerprint', cmd);
