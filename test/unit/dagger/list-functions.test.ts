// `make dagger-functions` reads the module's functions from its source, as `dagger functions` would list them.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exec } from '../../../scripts/lib/ports/exec.ts';

const SCRIPT = join(import.meta.dirname, '../../../dagger/list-functions.ts');

describe('dagger/list-functions.ts', () => {
  it('lists every @func of the module in kebab case with its doc comment and arguments, marking the @check', async () => {
    const listed = await exec(process.execPath, [SCRIPT]);
    expect(listed.code, listed.stderr).toBe(0);
    const names = listed.stdout
      .toString('utf8')
      .split('\n')
      .filter((line) => /^\S/.test(line))
      .map((line) => line.split(/\s+/)[0]);
    expect(names).toEqual([
      'Name',
      'fingerprint',
      'check',
      'catalogue-check',
      'build',
      'publish',
      'build-changed',
      'release-lock',
    ]);
    const text = listed.stdout.toString('utf8');
    expect(text).toMatch(/^catalogue-check\s+Fails when the catalogue check finds an error.*\[check\]$/m);
    expect(text).toMatch(
      /--source Directory --release string --commit string --built File --key Secret \(optional\) --oidc-token Secret \(optional\)/,
    );
  });
});
