import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { PROJECT_ROOT, runScript } from '../support/run-script.ts';
import { tempRepo, type TempRepo } from '../support/temp-repo.ts';

const EXAMPLE = join(PROJECT_ROOT, 'examples/platform');
const outputSchema = z.strictObject({
  schema: z.literal(1),
  source: z.union([z.literal('worktree'), z.string().regex(/^[0-9a-f]{40}$/)]),
  images: z.record(
    z.string(),
    z.strictObject({ fingerprint: z.string().regex(/^[0-9a-f]{64}$/), files: z.number().int().positive() }),
  ),
});

let repo: TempRepo;
const scratch: string[] = [];
const scratchDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
};
beforeAll(() => {
  repo = tempRepo();
  cpSync(EXAMPLE, repo.dir, { recursive: true, filter: (src) => !src.includes('/.local') });
  repo.commit('example platform');
});
afterAll(() => {
  repo.remove();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

const fingerprint = (...args: string[]) => runScript('fingerprint.ts', args);

function withCatalogue(edit: (text: string) => string): string {
  const dir = scratchDir('pharos-bad-');
  cpSync(repo.dir, dir, { recursive: true });
  const file = join(dir, 'gitops/manifests/images.yaml');
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
  return dir;
}

describe('scripts/fingerprint.ts', () => {
  it('prints --json as the spec defines, the same for the working tree and the commit', () => {
    const worktree = outputSchema.parse(JSON.parse(fingerprint('--repo', repo.dir, '--json').stdout));
    const commit = outputSchema.parse(JSON.parse(fingerprint('--repo', repo.dir, '--rev', 'HEAD', '--json').stdout));
    expect(worktree.source).toBe('worktree');
    expect(commit.source).toBe(repo.git('rev-parse', 'HEAD').trim());
    expect(commit.images).toEqual(worktree.images);
    expect(Object.keys(worktree.images)).toEqual(['api', 'compat-admin', 'compat-web', 'migrate', 'worker']);
  });

  it('prints a plain table by default and limits to --image names', () => {
    const result = fingerprint('--repo', repo.dir, '--image', 'worker', '--image', 'api');
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe('source: worktree');
    expect(lines[1]).toMatch(/^IMAGE\s+FILES\s+FINGERPRINT$/);
    expect(lines.slice(2).map((l) => l.split(/\s+/)[0])).toEqual(['worker', 'api']);
  });

  it('--explain prints the encoding whose hash is the fingerprint', async () => {
    const json = outputSchema.parse(JSON.parse(fingerprint('--repo', repo.dir, '--json').stdout));
    const text = fingerprint('--repo', repo.dir, '--explain', 'compat-web').stdout;
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(text).digest('hex')).toBe(json.images['compat-web']?.fingerprint);
    expect(text).toContain('arg\tAPP\trealtime-gateway\n');
    expect(text).not.toContain('app.spec.js');
  });

  it("--explain --since says what changed: against a commit (a receipt's) or the last --explain run", () => {
    const own = tempRepo();
    scratch.push(own.dir);
    cpSync(EXAMPLE, own.dir, { recursive: true, filter: (src) => !src.includes('/.local') });
    own.commit('example platform');
    const first = fingerprint('--repo', own.dir, '--explain', 'api', '--since', 'last');
    expect([first.status, first.stderr]).toEqual([2, expect.stringContaining('no earlier --explain of it')]);
    expect(fingerprint('--repo', own.dir, '--explain', 'api', '--since', 'HEAD').stdout).toMatch(
      /^api: unchanged since HEAD \([0-9a-f]{12}\)\n$/,
    );
    writeFileSync(join(own.dir, 'services/api/src/serve.sh'), 'echo changed\n');
    writeFileSync(join(own.dir, 'contracts/v2.json'), '{}\n');
    const since = fingerprint('--repo', own.dir, '--explain', 'api', '--since', 'last');
    expect(since.status).toBe(0);
    expect(since.stdout).toMatch(
      /^api: [0-9a-f]{12} -> [0-9a-f]{12} since the last --explain\n {2}file "contracts\/v2\.json" added\n {2}file "services\/api\/src\/serve\.sh" changed\n$/,
    );
    expect(fingerprint('--repo', own.dir, '--explain', 'api', '--since', 'last').stdout).toBe(
      'api: unchanged since the last --explain\n',
    );
    expect(fingerprint('--repo', own.dir, '--since', 'HEAD').status).toBe(2);
  });

  it('runs unchanged under Deno with the same output as Node', () => {
    const node = fingerprint('--repo', repo.dir, '--rev', 'HEAD', '--json');
    const deno = runScript('fingerprint.ts', ['--repo', repo.dir, '--rev', 'HEAD', '--json'], { runtime: 'deno' });
    expect(deno.stderr).toBe('');
    expect(deno.status).toBe(0);
    expect(deno.stdout).toBe(node.stdout);
    const denoTree = runScript('fingerprint.ts', ['--repo', repo.dir], { runtime: 'deno' });
    expect(denoTree.stdout).toBe(fingerprint('--repo', repo.dir).stdout);
  });

  it('answers --help with the flags and exit statuses', () => {
    const help = fingerprint('--help');
    expect(help.status).toBe(0);
    for (const flag of ['--repo', '--rev', '--image', '--explain', '--json', 'Exit status'])
      expect(help.stdout).toContain(flag);
  });

  describe('bad input: one clear error and exit status 2', () => {
    const cases: [string, () => string[], RegExp][] = [
      [
        'an unknown catalogue key',
        () => ['--repo', withCatalogue((t) => t.replace('    context: .\n', '    context: .\n    contxt: x\n'))],
        /images\.yaml:9: images\.api\.contxt: unknown key/,
      ],
      [
        'an input with ..',
        () => ['--repo', withCatalogue((t) => t.replace('[services/api,', '[../secrets,'))],
        /images\.api\.inputs\[0\]: unsafe path: .*"\.\.\/secrets"/,
      ],
      [
        'a missing Dockerfile',
        () => [
          '--repo',
          withCatalogue((t) =>
            t.replace('dockerfile: services/api/Dockerfile', 'dockerfile: services/api/Dockerfile.missing'),
          ),
        ],
        /Dockerfile "services\/api\/Dockerfile.missing" is not in the working tree/,
      ],
      [
        'an arg with a newline',
        () => ['--repo', withCatalogue((t) => t.replace('APP: realtime-gateway', 'APP: "realtime\\ngateway"'))],
        /images\.compat-web\.args\.APP: .*newline.*"realtime\\ngateway"/,
      ],
      [
        '--rev outside a git repository',
        () => ['--repo', scratchDir('pharos-nogit-'), '--rev', 'HEAD'],
        /not a git repository/,
      ],
      [
        'an unknown revision',
        () => ['--repo', repo.dir, '--rev', 'no-such-branch'],
        /Cannot resolve revision "no-such-branch"/,
      ],
      ['an unknown image', () => ['--repo', repo.dir, '--image', 'nope'], /Cannot fingerprint image "nope"/],
      ['an unknown flag', () => ['--repo', repo.dir, '--bogus'], /bogus/],
    ];
    for (const [name, args, message] of cases) {
      it(name, () => {
        const argv = args();
        const result = fingerprint(...argv);
        expect(result.status).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(message);
      });
    }
  });
});
