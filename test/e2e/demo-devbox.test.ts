// make demo-devbox: the documented way to try delivery and takeover without a cluster runs end to end.
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exec } from '../../scripts/lib/ports/index.ts';

const ROOT = resolve(import.meta.dirname, '../..');

describe('make demo-devbox on the simulated dev box', () => {
  it('delivers, explains the changed file, takes over compat-web and hands back, saying it is simulated', async () => {
    const result = await exec(join(ROOT, 'node_modules/.bin/node'), [join(ROOT, 'test/demo/devbox-demo.ts')], {
      timeoutMs: 300_000,
    });
    const out = result.stdout.toString('utf8');
    expect(result.code, result.stderr).toBe(0);
    expect(out).toContain('A simulated dev box');
    expect(out).toMatch(/^delivered [0-9a-f]{40} to dev\w+: 5 built, 0 kept$/m);
    expect(out).toMatch(/^compat-web +themelio-compat +candidate +native +file "apps\/compat\/src\/run\.sh" changed$/m);
    expect(out).toMatch(/^takeover: holding \[themelio-compat\] until .*; Ctrl-C hands back$/m);
    expect(out).toContain('takeover start exited 0');
    expect(out.trimEnd().split('\n').slice(-3)[0]).toBe('lease: none (Argo CD manages every Application)');
  }, 320_000);
});
