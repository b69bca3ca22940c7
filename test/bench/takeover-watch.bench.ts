// Takeover's watcher (issue 17): saved file → which runtimes restart, on the 50,000-file repository, as a ratio to
// `git status` measured in the same run (target: at most 2x). The debounce (200 ms by default) is not included:
// it is a chosen wait, not work. A save in one service's folder, then a save in the shared contracts folder.
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchRepo } from './generate-repo.ts';
import { ratioLine, run, timeIt } from './support/measure.ts';
import { loadCatalogue } from '../../scripts/lib/fingerprint/open-source.ts';
import { fingerprintImages } from '../../scripts/lib/fingerprint/fingerprint-images.ts';
import { openWorktreeSource } from '../../scripts/lib/fingerprint/worktree-source.ts';
import { decideRestarts } from '../../scripts/lib/takeover/watch/restart-decision.ts';
import { fingerprintsAfterSave } from '../../scripts/lib/takeover/watch/fingerprints-after-save.ts';

// Its own copy: saves here must not move the fingerprints other benchmarks read from the shared one.
const repo = benchRepo(join(tmpdir(), 'pharos-bench-repo-watch'));
const dir = repo.dir;
const source = await openWorktreeSource(dir);
const catalogue = await loadCatalogue(source);
const known = new Map((await fingerprintImages(source, catalogue)).map((p) => [p.name, p.fingerprint]));
const running = new Set(['svc-03', 'svc-07']);

function firstFile(prefix: string): string {
  const listed = run('git', ['-C', dir, 'ls-files', '--', prefix])
    .split('\n')
    .filter((l) => l.endsWith('.ts'));
  return listed[0]!;
}

async function measure(label: string, path: string, expect: (restart: readonly string[]) => boolean): Promise<void> {
  const file = join(dir, path);
  const original = readFileSync(file);
  let n = 0;
  try {
    const decision = await timeIt(
      async () => {
        const after = await fingerprintsAfterSave(dir, catalogue, [path]);
        const decided = decideRestarts(catalogue, known, after, running);
        if (!expect(decided.restart)) throw new Error(`${label}: unexpected restart [${decided.restart.join(', ')}]`);
      },
      { runs: 7, warmup: 1, before: () => writeFileSync(file, `${original.toString('utf8')}\n// save ${++n}\n`) },
    );
    const status = await timeIt(() => run('git', ['-C', dir, 'status', '--porcelain']), {
      runs: 7,
      warmup: 1,
      before: () => writeFileSync(file, `${original.toString('utf8')}\n// save ${++n}\n`),
    });
    process.stdout.write(`${ratioLine(label, decision, status, 'git status', '<= 2x')}\n`);
  } finally {
    writeFileSync(file, original);
  }
}

process.stdout.write(
  `takeover watch: ${repo.files} files, ${catalogue.images.length} images, runtimes here: ${[...running].join(', ')}\n`,
);
await measure(
  'save in services/svc-03 → restart [svc-03]',
  firstFile('services/svc-03/src'),
  (r) => r.join() === 'svc-03',
);
await measure(
  'save in contracts/ → restart [svc-03, svc-07]',
  firstFile('contracts'),
  (r) => r.join() === 'svc-03,svc-07',
);
