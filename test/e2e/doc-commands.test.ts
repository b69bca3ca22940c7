// Docs that work as written: every shell block of the README and docs/ runs here, or says why it cannot.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exec } from '../../scripts/lib/ports/index.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const NODE = join(ROOT, 'node_modules/.bin/node');
/** What a block may need instead of running here; anything else is a typo in a marker. */
const NEEDS = new Set([
  'a real cluster',
  'a production host',
  'the whole machine (make demo, make test)',
  'a Dagger engine',
]);
const COMMAND_WORDS = /^(make|npx|node|npm|kubectl|install|systemctl|openssl|git|docker)\b/;

interface Block {
  readonly file: string;
  readonly line: number;
  readonly lang: string;
  readonly marker: string | undefined;
  readonly commands: readonly string[];
}

function docFiles(): string[] {
  const out = [join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith('.md')) out.push(join(dir, entry.name));
    }
  };
  walk(join(ROOT, 'docs'));
  return out;
}

/** Fenced blocks with their language, the `<!-- … -->` marker on the line before, and their command lines. */
function blocks(): Block[] {
  const out: Block[] = [];
  for (const file of docFiles()) {
    const lines = readFileSync(file, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      // A fence may be indented (inside a list item): it is a block all the same, never one this test misses.
      const open = /^\s*```(\w*)\s*$/.exec(lines[i] ?? '');
      if (open === null) continue;
      const end = lines.findIndex((l, k) => k > i && l.trimStart().startsWith('```'));
      const body = lines.slice(i + 1, end);
      const marker = /^\s*<!-- (.*) -->$/.exec(lines[i - 1] ?? '')?.[1];
      const commands = body.map((l) => l.replace(/\s+#\s.*$/, '').trim()).filter((l) => l !== '' && !l.startsWith('#'));
      out.push({ file: relative(ROOT, file), line: i + 1, lang: open[1] ?? '', marker, commands });
      i = end;
    }
  }
  return out;
}

const all = blocks();
const shell = all.filter((b) => b.lang === 'sh');

describe('every command in the README and docs/', () => {
  it('is in a block labelled sh, so none escapes this test', () => {
    const hidden = all
      .filter((b) => b.lang === '' && b.commands.some((c) => COMMAND_WORDS.test(c)))
      .map((b) => `${b.file}:${b.line}`);
    expect(hidden).toEqual([]);
    expect(shell.length).toBeGreaterThan(8);
  });

  for (const block of shell) {
    const where = `${block.file}:${block.line}`;
    const need = block.marker?.startsWith('needs: ') ? block.marker.slice('needs: '.length) : undefined;
    if (need !== undefined || block.marker?.startsWith('example: ')) {
      it(`${where} is marked as needing ${need ?? 'real values (an example)'}, with a known reason`, () => {
        if (need !== undefined) expect(NEEDS).toContain(need);
        else expect(block.marker?.length).toBeGreaterThan('example: '.length + 5);
      });
      continue;
    }
    it(`${where} runs as written: ${block.commands.length} command(s), each exit status 0`, async () => {
      expect([undefined, 'runs in: a temporary folder']).toContain(block.marker);
      const cwd = block.marker === undefined ? ROOT : await mkdtemp(join(tmpdir(), 'doc-commands-'));
      try {
        for (const command of block.commands) {
          // `npx node` is the project's Node 24: call it directly (npx would only find the same file)
          const line = command.replace(/^npx node /, `${NODE} `);
          const result = await exec('bash', ['-c', line], { cwd, timeoutMs: 120_000 });
          expect({ command, code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({
            command,
            code: 0,
            stderr: '',
          });
        }
      } finally {
        if (cwd !== ROOT) await rm(cwd, { recursive: true, force: true });
      }
    }, 300_000);
  }

  it('"Every command answers --help" (README): each entry point prints its usage and exits 0', async () => {
    const entries = readdirSync(join(ROOT, 'scripts')).filter((name) => name.endsWith('.ts'));
    const answers = await Promise.all(
      entries.map(async (name) => {
        const result = await exec(NODE, [join(ROOT, 'scripts', name), '--help'], { cwd: ROOT, timeoutMs: 60_000 });
        return `${name} ${result.code} ${/usage|USAGE|OPTIONS|FLAGS|--help/i.test(result.stdout.toString('utf8')) ? 'usage' : 'no usage'}`;
      }),
    );
    expect(answers).toEqual(entries.map((name) => `${name} 0 usage`));
  });

  it("names only files and folders that exist when it points at this repository's paths", () => {
    const paths = shell.flatMap((b) =>
      b.commands.flatMap((c) => [...c.matchAll(/\b(?:scripts|examples|gitops|deploy)\/[\w./-]+/g)].map((m) => m[0])),
    );
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });
});
