import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { analyseDockerfile } from '../../../scripts/lib/dockerfile/index.ts';

const fragment = fc.oneof(
  fc.constantFrom(
    'FROM ',
    'COPY ',
    'ADD ',
    'RUN --mount=',
    'ARG ',
    'ENV ',
    'AS ',
    '--from=',
    '<<EOF',
    'EOF',
    '# escape=`',
    '# syntax=x',
    '\\\n',
    '`\n',
    '\r\n',
    '\n',
    ' ',
    '[',
    ']',
    '"',
    "'",
    '${',
    '}',
    '$',
    ':-',
    'a',
    '/',
    '*',
    'https://x',
  ),
  fc.string({ maxLength: 6 }),
);
const text = fc.array(fragment, { maxLength: 60 }).map((parts) => parts.join(''));

describe('analyseDockerfile on arbitrary text', () => {
  it('never throws, and every source, remote and problem points at a line of the file', () => {
    fc.assert(
      fc.property(text, fc.option(fc.string({ maxLength: 5 }), { nil: undefined }), (dockerfile, target) => {
        const lines = dockerfile.split(/\r\n|\r|\n/).length;
        const result = analyseDockerfile(dockerfile, {
          args: new Map([['APP', 'x']]),
          target,
          platform: 'linux/amd64',
        });
        for (const item of [...result.reads, ...result.remotes, ...result.problems]) {
          expect(item.line).toBeGreaterThanOrEqual(1);
          expect(item.line).toBeLessThanOrEqual(lines);
        }
      }),
      { numRuns: 500 },
    );
  });
});
