import { describe, expect, it } from 'vitest';
import { check, cleanPlatform } from './fixture.ts';

describe('check: filtered-input is grouped by attributes file', () => {
  it('one vendored .gitattributes converting inputs of two images through three lines is one finding, naming lines, counts and images', async () => {
    const files = cleanPlatform();
    files['.gitattributes'] = '*.sh text eol=lf\n*.html text\n';
    const findings = (await check(files)).filter((f) => f.rule === 'filtered-input');
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ image: 'api', file: '.gitattributes', line: 1, severity: 'warning' });
    expect(findings[0]?.message).toBe(
      '"eol=lf" (line 1, 2 files), "text" (line 1, 2 files), "text" (line 2, 1 file) convert 3 input file(s) of 2 images "api", "web" (e.g. "api/src/main.sh"): the fingerprint reads content as stored, so the working tree and the commit can disagree',
    );
  });

  it('two attributes files are two findings, each at its own first converting line', async () => {
    const files = cleanPlatform();
    files['.gitattributes'] = '# none here\n*.sh ident\n';
    files['web/.gitattributes'] = '*.html working-tree-encoding=UTF-16\n';
    const findings = (await check(files)).filter((f) => f.rule === 'filtered-input');
    expect(findings.map((f) => `${f.image} ${f.file}:${f.line}`)).toEqual([
      'api .gitattributes:2',
      'web web/.gitattributes:1',
    ]);
  });
});
