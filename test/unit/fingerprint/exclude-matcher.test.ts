import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { excludeMatcher } from '../../../scripts/lib/fingerprint/exclude-matcher.ts';
import { naiveGlobMatch } from '../../support/naive-fingerprint.ts';

describe('excludeMatcher()', () => {
  it('matches the default rule as the spec reads', () => {
    const m = excludeMatcher(['**/test/**', '**/*.md', '**/*.test.*']);
    expect(['test/x', 'a/test/x', 'README.md', '.notes.md', 'a/.h/r.md', 'a/b.test.ts'].filter(m)).toHaveLength(6);
    expect(['a/testx/y', 'a/b.mdx', 'a/md', 'atest/x', 'a/b.testts'].filter(m)).toEqual([]);
  });

  it('a trailing /** matches inside a folder only, as in gitignore: **/test/** excludes a/test/x, not a file a/test', () => {
    const m = excludeMatcher(['**/test/**']);
    expect(m('a/test/x')).toBe(true);
    expect(m('a/test/b/x')).toBe(true);
    expect(m('test/x')).toBe(true);
    expect(m('a/test')).toBe(false);
    expect(m('test')).toBe(false);
    expect(excludeMatcher(['hack/**'])('hack')).toBe(false);
    expect(excludeMatcher(['**'])('hack')).toBe(true);
  });

  it('treats *, ? and ** per segment, and nothing else as syntax', () => {
    expect(excludeMatcher(['a/*/c'])('a/b/c')).toBe(true);
    expect(excludeMatcher(['a/*/c'])('a/b/x/c')).toBe(false);
    expect(excludeMatcher(['a/**/c'])('a/c')).toBe(true);
    expect(excludeMatcher(['a/**/c'])('a/b/x/c')).toBe(true);
    expect(excludeMatcher(['?.txt'])('a.txt')).toBe(true);
    expect(excludeMatcher(['?.txt'])('/.txt')).toBe(false);
    expect(excludeMatcher(['{a,b}.txt'])('a.txt')).toBe(false);
    expect(excludeMatcher(['{a,b}.txt'])('{a,b}.txt')).toBe(true);
    expect(excludeMatcher(['[ab].txt'])('[ab].txt')).toBe(true);
    expect(excludeMatcher(['!a'])('!a')).toBe(true);
    expect(excludeMatcher(['a+(b)'])('a+(b)')).toBe(true);
  });

  it('an empty exclude list excludes nothing', () => {
    const m = excludeMatcher([]);
    expect(['a', 'README.md', 'test/x', ''].map(m)).toEqual([false, false, false, false]);
  });

  it('a name with a newline in it is matched like any other name', () => {
    expect(excludeMatcher(['**'])('a\nb')).toBe(true);
    expect(excludeMatcher(['docs/**'])('docs/a\nb')).toBe(true);
    expect(excludeMatcher(['**/*.md'])('x/a\nb.md')).toBe(true);
  });

  it('agrees with a naive segment-by-segment matcher on random globs and paths', () => {
    const seg = fc.stringMatching(/^[ab.*?+(){}[\]!-]{1,4}$/);
    const glob = fc.array(fc.oneof(seg, fc.constant('**')), { minLength: 1, maxLength: 5 }).map((s) => s.join('/'));
    const path = fc
      .array(fc.stringMatching(/^[ab.+(){}[\]!-]{1,3}$/), { minLength: 1, maxLength: 5 })
      .map((s) => s.join('/'));
    fc.assert(
      fc.property(glob, path, (g, p) => excludeMatcher([g])(p) === naiveGlobMatch(g, p)),
      { numRuns: 3000 },
    );
  });
});
