import { describe, expect, it } from 'vitest';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { exec } from '../../scripts/lib/ports/exec.ts';

const TOP = resolve(import.meta.dirname, '../..');
const run = async (...args: string[]) => {
  const result = await exec(join(TOP, 'node_modules/.bin/node'), [join(TOP, 'scripts/devbox.ts'), ...args], {
    cwd: TOP,
  });
  return { code: result.code, stdout: result.stdout.toString('utf8'), stderr: result.stderr };
};

describe('devbox command line', () => {
  it('documents reconcile and its exit statuses in --help', async () => {
    const help = await run('reconcile', '--help');
    expect(help.code).toBe(0);
    for (const flag of ['--target', '--rev', '--parallel', '--dry-run', '--json']) expect(help.stdout).toContain(flag);
    expect(help.stdout).toContain('3 refused');
  });

  it('exits 2 naming the profile it looked for when the target is unknown', async () => {
    const result = await run('reconcile', '--target', 'nowhere', '--targets', 'targets');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /error \[unknown-target\]: Cannot load target "nowhere": no profile ".*targets\/nowhere\.yaml"/,
    );
  });

  it('exits 2 with every bad field of a profile, before touching any cluster', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'targets-'));
    await writeFile(
      join(dir, 'bad.yaml'),
      'schema: 1\nkube: {}\ngit: {push: x}\nregistry: {host: "127.0.0.1:5000"}\nroot: {application: r}\nproject: p\nextra: 1\n',
    );
    const result = await run('reconcile', '--target', 'bad', '--targets', dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('bad.yaml: git.cluster: ');
    expect(result.stderr).toContain('bad.yaml: extra: unknown key');
  });

  it('refuses --parallel 0 and an unknown command with exit 2', async () => {
    expect((await run('reconcile', '--target', 'local', '--parallel', '0')).code).toBe(2);
    const unknown = await run('destroy');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "destroy"');
  });
});
