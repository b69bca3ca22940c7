// plainArgv(): the calls a command's callers make most, read without cmd-ts; everything else is left to cmd-ts.
import { describe, expect, it } from 'vitest';
import { plainArgv } from '../../../scripts/lib/cli/plain-argv.ts';

const SPEC = { options: ['repo', 'rev'], flags: ['json'] };
const read = (...argv: string[]) => {
  const plain = plainArgv(argv, SPEC);
  return plain === undefined ? undefined : { options: plain.options, flags: [...plain.flags] };
};

describe('plainArgv', () => {
  it('reads the spec’s long options, with a separate or an inline value, and its bare flags', () => {
    expect(read()).toEqual({ options: {}, flags: [] });
    expect(read('--repo', 'a', '--rev=HEAD~1', '--json')).toEqual({
      options: { repo: 'a', rev: 'HEAD~1' },
      flags: ['json'],
    });
    expect(read('--json', '--repo=dir with spaces')).toEqual({ options: { repo: 'dir with spaces' }, flags: ['json'] });
  });

  it('leaves to cmd-ts: unknown and short names, repeats, positionals, `--`, help, and values it could misread', () => {
    for (const argv of [
      ['--bogus'],
      ['-j'],
      ['--repo', 'a', '--repo', 'b'],
      ['--json', '--json'],
      ['dir'],
      ['--', '--json'],
      ['--help'],
      ['-h'],
      ['--repo'],
      ['--repo='],
      ['--repo', '--json'],
      ['--repo=-x'],
      ['--json=false'],
      ['--no-json'],
    ])
      expect(read(...argv), argv.join(' ')).toBeUndefined();
  });
});
