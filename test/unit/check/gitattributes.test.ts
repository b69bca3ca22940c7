import { describe, expect, it } from 'vitest';
import { convertingAttributes, parseGitattributes } from '../../../scripts/lib/check/index.ts';

describe('gitattributes rules', () => {
  const rules = [
    ...parseGitattributes('# comment\n*.sh text eol=lf\n*.png binary\nassets/** filter=lfs\n', '.gitattributes'),
    ...parseGitattributes('*.sh -text -eol\n/local.txt filter=crypt\n', 'svc/.gitattributes'),
  ];

  it('matches a pattern without a slash against the basename at any depth', () => {
    expect(convertingAttributes('a/b/run.sh', rules)).toEqual([
      { file: '.gitattributes', line: 2, setting: 'eol=lf' },
      { file: '.gitattributes', line: 2, setting: 'text' },
    ]);
  });

  it('anchors a pattern with a slash to its own folder', () => {
    expect(convertingAttributes('assets/img/logo.svg', rules)).toEqual([
      { file: '.gitattributes', line: 4, setting: 'filter=lfs' },
    ]);
    expect(convertingAttributes('svc/local.txt', rules)).toEqual([
      { file: 'svc/.gitattributes', line: 2, setting: 'filter=crypt' },
    ]);
    expect(convertingAttributes('svc/sub/local.txt', rules)).toEqual([]);
  });

  it('lets a deeper file unset what the root file set, and expands the binary macro', () => {
    expect(convertingAttributes('svc/run.sh', rules)).toEqual([]);
    expect(convertingAttributes('logo.png', rules)).toEqual([]);
  });
});
