// The last step of `make mutation`, run as make runs it: its exit status is what fails the target.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'check-scores-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [join(ROOT, 'test/mutation/check-scores.ts'), ...args], {
    cwd: dir,
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
function report(name: string, files: Record<string, string[]>): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      files: Object.fromEntries(
        Object.entries(files).map(([f, statuses]) => [
          f,
          { mutants: statuses.map((status, i) => ({ id: String(i), status })) },
        ]),
      ),
    }),
  );
  return path;
}

describe('test/mutation/check-scores.ts', () => {
  it('exits 0 and prints each file when every file is at or above the floor', () => {
    const result = run('--report', report('ok.json', { 'a.ts': ['Killed', 'Ignored'], 'b.ts': ['Timeout'] }));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('100.00%     1 killed    0 survived    0 no coverage    1 ignored  a.ts');
  });

  it('exits 1 and names the file below the floor', () => {
    const result = run('--report', report('low.json', { 'a.ts': ['Killed', 'Survived'] }), '--min', '95');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('Mutation score of a.ts is 50.00%, below the floor of 95%\n');
  });

  it('exits 2 without a report, with a bad one or a bad floor', () => {
    expect(run('--report', join(dir, 'missing.json'))).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('run `npx stryker run` first'),
    });
    writeFileSync(join(dir, 'bad.json'), '{"files": 3}');
    expect(run('--report', join(dir, 'bad.json'))).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('bad.json: files:'),
    });
    expect(run('--min', '101').code).toBe(2);
    expect(run('--nope').code).toBe(2);
  });

  it('answers --help with its usage and exit statuses', () => {
    const result = run('--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: node test\/mutation\/check-scores\.ts/);
  });

  it('--json gives the scores and the files below the floor', () => {
    const result = run('--report', report('json.json', { 'a.ts': ['Survived'] }), '--json');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      schema: 1,
      min: 95,
      below: ['a.ts'],
      files: [{ file: 'a.ts', score: 0 }],
    });
  });
});
