// `--help` prints the text cmd-ts rendered when it was saved, byte for byte what cmd-ts prints, without loading cmd-ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exec } from '../../../scripts/lib/ports/exec.ts';
import { helpKey, SAVED_HELP } from '../../../scripts/commands/saved-help-commands.ts';
import type { SavedHelpFile } from '../../../scripts/lib/cli/saved-help.ts';

const TOP = join(import.meta.dirname, '../../..');
const { FORCE_COLOR: _, NO_COLOR: __, ...QUIET } = process.env;

/** Runs scripts/<entry>.ts; `cmd-ts` turns the saved texts off, so cmd-ts prints as it did before they existed. */
async function cli(entry: string, argv: readonly string[], env: Record<string, string> = {}) {
  const result = await exec(process.execPath, [join(TOP, 'scripts', `${entry}.ts`), ...argv], {
    env: { ...QUIET, ...env },
  });
  return { code: result.code, stdout: result.stdout.toString('utf8'), stderr: result.stderr };
}
const byCmdTs = { HEPHAESTUS_CLI_HELP: 'cmd-ts' };

const COMMANDS = SAVED_HELP.flatMap(({ entry, commands }) => commands.map((selector) => ({ entry, selector })));

describe('the saved --help texts (scripts/help/)', () => {
  it('are what cmd-ts renders from the definitions today, plain and coloured (scripts/sync-help.ts --check)', async () => {
    const checked = await exec(process.execPath, [join(TOP, 'scripts/sync-help.ts'), '--check']);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout.toString('utf8')).toMatch(/^scripts\/help\/ is current: 12 entry points/);
  }, 120_000);

  it('cover every entry point that runs a cmd-ts command, each checking for help before it loads cmd-ts', () => {
    const entries = readdirSync(join(TOP, 'scripts'))
      .filter((name) => name.endsWith('.ts') && readFileSync(join(TOP, 'scripts', name), 'utf8').includes('runCli('))
      .map((name) => name.slice(0, -'.ts'.length));
    expect(entries.length).toBeGreaterThan(10);
    expect(SAVED_HELP.map(({ entry }) => entry).sort()).toEqual(entries.sort());
    for (const entry of entries) {
      const text = readFileSync(join(TOP, 'scripts', `${entry}.ts`), 'utf8');
      expect(text.indexOf('exitOnSavedHelp('), entry).toBeGreaterThan(-1);
      expect(text.indexOf('exitOnSavedHelp('), entry).toBeLessThan(
        text.search(/from 'cmd-ts'|import\('cmd-ts'\)|\.\/lib\/cli\/run-cli\.ts/),
      );
    }
  });

  it.each(COMMANDS)(
    '$entry $selector --help and -h print what cmd-ts prints, exit status 0',
    async ({ entry, selector }) => {
      const [saved, short, cmdTs] = await Promise.all([
        cli(entry, [...selector, '--help']),
        cli(entry, [...selector, '-h']),
        cli(entry, [...selector, '--help'], byCmdTs),
      ]);
      expect(cmdTs.code).toBe(0);
      expect(cmdTs.stdout.length).toBeGreaterThan(100);
      expect(saved).toEqual(cmdTs);
      expect(short).toEqual(cmdTs);
    },
    60_000,
  );

  it('ci.ts --help lists the commands with their descriptions as before, loading none of them', async () => {
    const [saved, cmdTs] = await Promise.all([cli('ci', ['--help']), cli('ci', ['--help'], byCmdTs)]);
    expect(saved).toEqual(cmdTs);
    expect(saved.stdout).toContain('  image-map          Turn `dagger call build-changed` output');
  }, 60_000);

  it('coloured where cmd-ts colours (FORCE_COLOR at any level, --color, Azure Pipelines), as cmd-ts prints it', async () => {
    const cases: [Record<string, string>, string[]][] = [
      [{ FORCE_COLOR: '1' }, ['--help']],
      [{ FORCE_COLOR: '3' }, ['--help']],
      [{}, ['--color', '--help']],
      [{ TF_BUILD: 'True', AGENT_NAME: 'hosted' }, ['-h']],
    ];
    for (const [env, argv] of cases) {
      const [saved, cmdTs] = await Promise.all([
        cli('fingerprint', argv, env),
        cli('fingerprint', argv, { ...byCmdTs, ...env }),
      ]);
      expect(saved.stdout).toContain('\u001b[1mfingerprint\u001b[22m');
      expect(saved).toEqual(cmdTs);
    }
    const saved = JSON.parse(readFileSync(join(TOP, 'scripts/help/fingerprint.json'), 'utf8')) as SavedHelpFile;
    expect(saved.commands[helpKey([])]?.plain).not.toContain('\u001b');
  }, 60_000);

  it.each(
    [
      ['fingerprint', '--help'],
      ['takeover', '--help'],
      ['takeover', 'plan', '--help'],
      ['devbox', '--help'],
      ['devbox', 'deploy', '-h'],
      ['ci', '--help'],
      ['ci', 'publish-lock', '--help'],
    ].map(([entry = '', ...argv]) => ({ entry, argv, shown: argv.join(' ') })),
  )('load no cmd-ts: $entry $shown loads a handful of the project modules and no package', async ({ entry, argv }) => {
    const hook = `data:text/javascript,${encodeURIComponent(
      "import { registerHooks } from 'node:module'; const seen = []; registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } }); process.on('exit', () => process.stderr.write(JSON.stringify(seen)));",
    )}`;
    const result = await exec(process.execPath, ['--import', hook, join(TOP, 'scripts', `${entry}.ts`), ...argv], {
      env: QUIET,
    });
    expect(result.code).toBe(0);
    const loaded = JSON.parse(result.stderr) as string[];
    expect(loaded.filter((url) => url.includes('/node_modules/'))).toEqual([]);
    expect(loaded.filter((url) => url.startsWith('file:')).length).toBeLessThan(8);
  });

  it('anything but a help request goes to cmd-ts as before: usage errors, --help as the value of an option', async () => {
    const [unknown, unknownByCmdTs] = await Promise.all([
      cli('fingerprint', ['--bogus']),
      cli('fingerprint', ['--bogus'], byCmdTs),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown arguments');
    expect(unknown).toEqual(unknownByCmdTs);
    const asValue = await cli('takeover', ['logs', '--lines', '--help']);
    expect(asValue.stdout).not.toContain('takeover logs');
    expect(asValue.code).toBe(2);
  }, 60_000);
});
