// helpRequest() against cmd-ts itself: whenever it answers help, cmd-ts prints the help for that argv.
import { command, flag, multioption, array, option, optional, positional, string } from 'cmd-ts';
import { runSafely } from 'cmd-ts';
import { describe, expect, it } from 'vitest';
import { helpRequest } from '../../../scripts/lib/cli/help-request.ts';
import { describeCommand } from '../../../scripts/lib/cli/run-cli.ts';
import { argumentLists } from '../../support/argument-lists.ts';

const sample = command({
  name: 'sample',
  args: {
    rev: option({ long: 'rev', type: optional(string) }),
    target: option({ long: 'target', short: 't', type: optional(string) }),
    image: multioption({ long: 'image', type: array(string) }),
    json: flag({ long: 'json' }),
    quiet: flag({ long: 'quiet', short: 'q' }),
    dir: positional({ type: optional(string), displayName: 'dir' }),
  },
  handler: async () => 0,
});

/** Whether cmd-ts answers `argv` with the help text, exit status 0 on stdout. */
async function cmdTsPrintsHelp(argv: readonly string[]): Promise<boolean> {
  const result = await runSafely(sample, [...argv]);
  if (result._tag !== 'error') return false;
  const { exitCode, into, message } = result.error.config;
  return exitCode === 0 && into === 'stdout' && message === sample.printHelp({ nodes: [], visitedNodes: new Set() });
}

const PIECES = [
  '--help',
  '-h',
  '--rev',
  'x',
  '--json',
  '-t',
  '-q',
  '-qh',
  '-hq',
  '--bogus',
  '-z',
  '--',
  '-',
  '--help=true',
  '--rev=y',
  '-t=1',
];

const argvs = () => argumentLists(PIECES);

describe('a help request recognised before cmd-ts loads', async () => {
  const { names } = await describeCommand(sample);

  it('is one cmd-ts answers with the help, for every argv of up to three pieces (no false help)', async () => {
    const wrong: string[] = [];
    let recognised = 0;
    for (const argv of argvs()) {
      if (helpRequest(argv, names) !== 'help') continue;
      recognised++;
      if (!(await cmdTsPrintsHelp(argv))) wrong.push(argv.join(' '));
    }
    expect(wrong).toEqual([]);
    expect(recognised).toBeGreaterThan(500);
  });

  it('misses only `--help=true`: every other argv cmd-ts answers with the help is recognised', async () => {
    const missed: string[] = [];
    for (const argv of argvs())
      if (helpRequest(argv, names) !== 'help' && (await cmdTsPrintsHelp(argv))) missed.push(argv.join(' '));
    expect(missed.filter((argv) => !argv.split(' ').includes('--help=true'))).toEqual([]);
  });

  it('answers the common requests: alone, after options and their values, after an unknown option, in a short group', () => {
    for (const argv of [
      ['--help'],
      ['-h'],
      ['--rev', 'x', '--help'],
      ['--bogus', '-h'],
      ['-qh'],
      ['dir', '--json', '--help'],
      ['--help', '--', 'x'],
    ])
      expect(helpRequest(argv, names), argv.join(' ')).toBe('help');
  });

  it('not when the help flag is the value of an option, repeated, after `--`, or given a value', () => {
    for (const argv of [
      ['--rev', '--help'],
      ['-t', '-h'],
      ['--help', '-h'],
      ['--', '--help'],
      ['--help=false'],
      ['--help', 'x'],
      [],
    ])
      expect(helpRequest(argv, names), argv.join(' ')).toBe('undecided');
  });
});
