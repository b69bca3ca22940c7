import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

/** README.md and every Markdown file under docs/. */
function docs(): string[] {
  const out = [join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) out.push(path);
    }
  };
  walk(join(ROOT, 'docs'));
  return out;
}

describe('the docs stand alone in a clone of this repository', () => {
  it('no doc cites a contract outside the repository (../shared, shared/specs)', () => {
    const citing = docs().flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /\.\.\/shared\b|\bshared\/(specs|reference)\b/.test(line) ? [`${relative(ROOT, file)}:${i + 1}`] : [],
        ),
    );
    expect(citing).toEqual([]);
  });

  it('every relative Markdown link points at a file or folder that exists', () => {
    const broken = docs().flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
        .map((m) => m[1] ?? '')
        .filter((target) => !/^[a-z]+:/i.test(target))
        .filter((target) => !existsSync(resolve(dirname(file), target)))
        .map((target) => `${relative(ROOT, file)} -> ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it('docs/formats documents every shared format', () => {
    const formats = readdirSync(join(ROOT, 'docs/formats')).sort();
    expect(formats).toEqual([
      'README.md',
      'applied-record.md',
      'catalogue.md',
      'channel.md',
      'contexts.md',
      'fingerprint-encoding.md',
      'lease.md',
      'locks.md',
      'receipt.md',
      'release-evidence.md',
      'secret-keys.md',
    ]);
  });
});
