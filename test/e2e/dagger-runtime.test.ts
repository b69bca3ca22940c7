// The module as Dagger's TypeScript runtime loads it: its own layout, its own lockfile, tsx and the SDK's
// entrypoint in a Node container without git, each function called through the engine simulator on the real
// Docker Engine. Results equal the command-line scripts'.
import { appendFile, cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dag } from '@dagger.io/dagger';
import { LABEL_FINGERPRINT } from '../../scripts/lib/delivery/build-job.ts';
import { hasGit, inSession, loadModule, startDaggerLab } from '../support/dagger-simulator/index.ts';
import type { DaggerLab, ModuleRuntime } from '../support/dagger-simulator/index.ts';
import { runScript } from '../support/platform-repo.ts';
import { tempRepo } from '../support/temp-repo.ts';

let lab: DaggerLab;
let mod: ModuleRuntime;
let dir: string;
let head: string;

beforeAll(async () => {
  lab = await startDaggerLab();
  mod = await loadModule(lab.sim, lab.repo.dir);
  dir = lab.repo.dir;
  head = await lab.repo.git('rev-parse', 'HEAD');
});
afterAll(() => lab?.stop());

describe('loading', () => {
  it('registers every function from a runtime image without git, the side-effecting ones never cached', async () => {
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
    expect(mod.functions.find((f) => f.name === 'catalogueCheck')?.args).toEqual([
      { name: 'source', defaultPath: '/' },
    ]);
  });
});

describe('fingerprint and check', () => {
  it('fingerprint equals scripts/fingerprint.ts --rev --json, and check equals check-platform-gitops.ts --json', async () => {
    const [viaDagger, viaScript, checked, checkScript] = await Promise.all([
      mod.call('fingerprint', { source: mod.directory(dir), rev: head }),
      runScript('fingerprint.ts', ['--repo', dir, '--rev', head, '--json']),
      mod.call('check', { source: mod.directory(dir) }),
      runScript('check-platform-gitops.ts', ['--repo', dir, '--json']),
    ]);
    expect(viaScript.code, viaScript.stderr).toBe(0);
    expect(viaDagger).toBe(viaScript.stdout.toString('utf8'));
    expect(JSON.parse(String(viaDagger))).toMatchObject({
      schema: 1,
      source: head,
      images: { api: { fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) } },
    });
    expect(checked).toBe(checkScript.stdout.toString('utf8'));
  });

  it('a repeated call with the same arguments is answered from the engine cache (default policy): no run', async () => {
    const args = { source: mod.directory(dir), rev: head };
    const first = await mod.call('fingerprint', args);
    const runs = mod.runs;
    expect(await mod.call('fingerprint', args)).toBe(first);
    expect(mod.runs).toBe(runs);
  });

  it('the @check function passes on the context directory by default and fails naming the rule on a broken copy', async () => {
    const broken = tempRepo();
    try {
      await cp(dir, broken.dir, { recursive: true });
      await appendFile(join(broken.dir, 'services/api/Dockerfile'), 'COPY apps/ /x/\n');
      const [passed, failed] = await Promise.allSettled([
        mod.call('catalogue-check'),
        mod.call('catalogue-check', { source: mod.directory(broken.dir) }),
      ]);
      expect(passed).toEqual({ status: 'fulfilled', value: null });
      expect(failed).toMatchObject({
        status: 'rejected',
        reason: {
          message: expect.stringMatching(/^Catalogue check failed:[\s\S]*copy-outside-inputs COPY source "apps\/"/),
        },
      });
    } finally {
      broken.remove();
    }
  });
});

describe('build', () => {
  it('returns a Container labelled with the fingerprint and commit, which runs', async () => {
    const [id, report] = await Promise.all([
      mod.call('build', { source: mod.directory(dir), image: 'compat-web' }),
      runScript('fingerprint.ts', ['--repo', dir, '--json']),
    ]);
    const [fingerprint, commit, out] = await inSession(lab.sim, async () => {
      const image = dag.loadContainerFromID(String(id) as never);
      return Promise.all([
        image.label(LABEL_FINGERPRINT),
        image.label('pharos.dev/commit'),
        image.withExec(['cat', '/app/build.txt']).stdout(),
      ]);
    });
    expect(fingerprint).toBe(JSON.parse(report.stdout.toString('utf8')).images['compat-web'].fingerprint);
    expect(commit).toBe(head);
    expect(out).toMatch(/realtime-gateway/);
  });
});

describe('bad input is one clear error naming the argument', () => {
  it('image, registry, source without a catalogue, signing key, release', async () => {
    const empty = tempRepo({ 'README.md': 'no catalogue here\n' });
    empty.commit();
    try {
      const results = await Promise.allSettled([
        mod.call('build', { source: mod.directory(dir), image: 'nope' }),
        mod.call('build', { source: mod.directory(dir), image: 'Not_A_Name' }),
        mod.call('publish', { source: mod.directory(dir), image: 'api', registry: 'https://ghcr.io' }),
        mod.call('fingerprint', { source: mod.directory(empty.dir) }),
        mod.call('release-lock', {
          source: mod.directory(dir),
          release: '1.0',
          commit: 'HEAD',
          built: mod.file(join(empty.dir, 'README.md')),
          key: mod.secret('k', 'x'),
        }),
      ]);
      const messages = results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'fulfilled'));
      expect(messages[0]).toMatch(
        /^Invalid argument "image" "nope": gitops\/manifests\/images\.yaml has no such entry \(known: .*api/,
      );
      expect(messages[1]).toMatch(/^Invalid argument "image" "Not_A_Name": must be a catalogue name/);
      expect(messages[2]).toMatch(/^Invalid argument "registry" "https:\/\/ghcr\.io": must be/);
      expect(messages[3]).toMatch(/^Cannot load catalogue: "gitops\/manifests\/images\.yaml" is not in/);
      expect(messages[4]).toBe('Cannot produce lock: release "1.0" is not vX.Y.Z');
    } finally {
      empty.remove();
    }
  });
});
