#!/usr/bin/env node
// Fingerprints catalogue images from the working tree or a commit (spec: catalogue-and-fingerprint.md).
import './lib/cli/require-node.ts';
import './lib/cli/compile-cache.ts';
import { resolve } from 'node:path';
import { prefetchWorktree } from './lib/cli/prefetch-worktree.ts';

prefetchWorktree(process.argv);

// Loaded after the code cache is on: static imports would be compiled before it.
const { command, option, optional, string, multioption, array, flag } = await import('cmd-ts');
const { runCli } = await import('./lib/cli/run-cli.ts');
const { hashProgress } = await import('./lib/cli/progress.ts');
const { formatTable } = await import('./lib/cli/table.ts');
const { fingerprintImages, loadCatalogue, openSource, selectImages } = await import('./lib/fingerprint/index.ts');

const cmd = command({
  name: 'fingerprint',
  description:
    'Print the fingerprint/v1 of every catalogue image (gitops/manifests/images.yaml).\n' +
    'Exit status: 0 done, 1 failure (git or I/O), 2 usage, catalogue or repository error.',
  args: {
    repo: option({ long: 'repo', type: string, defaultValue: () => '.', defaultValueIsSerializable: true, description: 'repository folder' }),
    rev: option({ long: 'rev', type: optional(string), description: "hash this commit's tree instead of the working tree" }),
    image: multioption({ long: 'image', type: array(string), description: 'catalogue name (repeatable; default: all)' }),
    explain: option({ long: 'explain', type: optional(string), description: "print this image's fingerprint/v1 text, one line per file" }),
    json: flag({ long: 'json', description: 'print {"schema":1,"source","images"} as JSON' }),
  },
  handler: async ({ repo, rev, image, explain, json }) => {
    const source = await openSource(resolve(repo), rev);
    const catalogue = await loadCatalogue(source);
    const names = explain !== undefined ? [explain] : image;
    selectImages(catalogue, names); // unknown names fail before any hashing
    const results = await fingerprintImages(source, catalogue, { images: names, progress: hashProgress('hashing'), encodings: explain !== undefined });
    if (explain !== undefined) {
      process.stdout.write(results[0]?.encoding ?? '');
      if (json) process.stderr.write('fingerprint: --explain prints the encoding text; --json is ignored\n');
      return 0;
    }
    if (json) {
      const images = Object.fromEntries(results.map((r) => [r.name, { fingerprint: r.fingerprint, files: r.files }]));
      process.stdout.write(`${JSON.stringify({ schema: 1, source: source.id, images })}\n`);
      return 0;
    }
    process.stdout.write(`source: ${source.id}\n`);
    process.stdout.write(formatTable(['IMAGE', 'FILES', 'FINGERPRINT'], results.map((r) => [r.name, String(r.files), r.fingerprint])));
    return 0;
  },
});

await runCli('fingerprint', cmd);
