// The young generation of a process that imports the module stays at its first semi-spaces while objects survive,
// where V8 would otherwise double it up to 2 x 32 MiB.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MODULE = fileURLToPath(new URL('../../../scripts/lib/cli/small-young-generation.ts', import.meta.url));

/** The new space's size (MiB) after a child keeps 200,000 objects alive, with or without the module imported. */
function newSpaceAfterSurvivors(withModule: boolean): number {
  const script = `
    ${withModule ? `await import(${JSON.stringify(MODULE)});` : ''}
    const v8 = await import('node:v8');
    const kept = [];
    for (let i = 0; i < 200000; i++) kept.push({ i, s: 'x' + i });
    const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(space.space_size / 1048576));
    if (kept.length === 0) process.exit(1); // the objects stay alive until measured
  `;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

describe('small-young-generation', () => {
  it('keeps the new space small while objects survive, where it otherwise grows', () => {
    const small = newSpaceAfterSurvivors(true);
    const grown = newSpaceAfterSurvivors(false);
    expect(small).toBeLessThanOrEqual(4);
    expect(grown).toBeGreaterThan(small);
  });
});
