#!/usr/bin/env node
// `make dagger-lib`: copies into dagger/lib/ the scripts/lib files the module imports (and what they import), because
// Dagger's TypeScript runtime copies only the module's source folder (dagger/) into its container (docs/dagger.md).
// `--check` changes nothing and fails when the copy is stale; test/unit/dagger/lib-copy.test.ts runs it.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { libClosure } from './lib-closure.ts';

const MODULE = dirname(fileURLToPath(import.meta.url));
const LIBRARY = resolve(MODULE, '../scripts/lib');
const COPY = join(MODULE, 'lib');

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

const wanted = libClosure(MODULE, LIBRARY).libraryFiles;
const problems: string[] = [];
const present = new Set(filesUnder(COPY));
for (const file of wanted) {
  const bytes = readFileSync(join(LIBRARY, file));
  const target = join(COPY, file);
  if (present.has(file) && readFileSync(target).equals(bytes)) continue;
  problems.push(`${present.has(file) ? 'differs' : 'missing'}: dagger/lib/${file}`);
  if (!process.argv.includes('--check')) {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, bytes);
  }
}
for (const file of present) {
  if (wanted.includes(file)) continue;
  problems.push(`not imported: dagger/lib/${file}`);
  if (!process.argv.includes('--check')) rmSync(join(COPY, file));
}
if (process.argv.includes('--check')) {
  if (problems.length > 0) {
    process.stderr.write(
      `dagger/lib/ is stale (${problems.length}): run \`node dagger/sync-lib.ts\`\n${problems.join('\n')}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`dagger/lib/ is current: ${wanted.length} files from scripts/lib/\n`);
} else {
  process.stdout.write(
    `dagger/lib/: ${wanted.length} files from scripts/lib/ (${problems.length} written or removed)\n`,
  );
}
