// Dagger's runtime copies only dagger/ into its container: what the module imports must be there, and current.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { libClosure } from '../../../dagger/lib-closure.ts';
import { exec } from '../../../scripts/lib/ports/exec.ts';

const TOP = join(import.meta.dirname, '../../..');

describe('dagger/lib, the copy of scripts/lib the module imports', () => {
  it('is byte for byte what scripts/lib holds, with nothing missing or extra (dagger/sync-lib.ts --check)', async () => {
    const checked = await exec(process.execPath, [join(TOP, 'dagger/sync-lib.ts'), '--check']);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout.toString('utf8')).toMatch(/^dagger\/lib\/ is current: \d+ files/);
  });

  it('the module source imports nothing outside dagger/, and every package it imports is in dagger/package.json', () => {
    const closure = libClosure(join(TOP, 'dagger'), join(TOP, 'scripts/lib'));
    expect(closure.outside).toEqual([]);
    expect(closure.libraryFiles).toContain('ports/git.ts');
    const pkg = JSON.parse(readFileSync(join(TOP, 'dagger/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(closure.packages.filter((name) => pkg.dependencies[name] === undefined)).toEqual([]);
  });

  it('reports an import that leaves the module folder', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
    const root = mkdtempSync(join(TOP, '.local-lib-closure-'));
    try {
      mkdirSync(join(root, 'dagger/src'), { recursive: true });
      mkdirSync(join(root, 'scripts/lib'), { recursive: true });
      writeFileSync(join(root, 'dagger/src/index.ts'), "import { x } from '../../scripts/lib/x.ts';\n");
      expect(libClosure(join(root, 'dagger'), join(root, 'scripts/lib')).outside).toEqual([
        { from: 'src/index.ts', specifier: '../../scripts/lib/x.ts' },
      ]);
    } finally {
      const { rmSync } = await import('node:fs');
      rmSync(root, { recursive: true, force: true });
    }
  });
});
