// The module as Dagger's TypeScript runtime loads it: its own layout, its own lockfile, tsx and the SDK's
// entrypoint in a Node container without git, every function called through the engine simulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIT_IMAGE } from '../../dagger/src/git-in-container.ts';
import { ensureGitImage, hasGit, loadModule, startDaggerLab } from '../support/dagger-simulator/index.ts';
import type { DaggerLab, ModuleRuntime } from '../support/dagger-simulator/index.ts';
import { runScript } from '../support/platform-repo.ts';

let lab: DaggerLab | undefined;
let mod: ModuleRuntime;

beforeAll(async () => {
  lab = await startDaggerLab();
  await ensureGitImage(GIT_IMAGE);
  mod = await loadModule(lab.sim, lab.repo.dir);
});
afterAll(() => lab?.stop());

describe('loading', () => {
  it('registers every function, with the side-effecting ones never cached, from a runtime image without git', async () => {
    expect(await hasGit(mod.layout.image)).toBe(false);
    expect(mod.functions.map((f) => [f.name, f.cache.policy, f.check])).toEqual([
      ['fingerprint', 'Default', false],
      ['check', 'Default', false],
      ['catalogueCheck', 'Default', true],
      ['build', 'Default', false],
      ['publish', 'Never', false],
      ['buildChanged', 'Never', false],
      ['releaseLock', 'Never', false],
    ]);
  });
});

describe('fingerprint', () => {
  it('equals scripts/fingerprint.ts --rev --json for the same commit', async () => {
    const repo = lab?.repo;
    if (repo === undefined) throw new Error('no lab');
    const head = await repo.git('rev-parse', 'HEAD');
    const viaDagger = await mod.call('fingerprint', { source: mod.directory(repo.dir), rev: head });
    const viaScript = await runScript('fingerprint.ts', ['--repo', repo.dir, '--rev', head, '--json']);
    expect(viaScript.code, viaScript.stderr).toBe(0);
    expect(viaDagger).toBe(viaScript.stdout.toString('utf8'));
  });
});
