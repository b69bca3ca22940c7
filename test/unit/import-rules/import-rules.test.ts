// The import rules of .dependency-cruiser.mjs against a small tree of files: each rule fails on a deliberately wrong
// import and lets the right one through. `make check` runs the same rules over scripts/ and dagger/.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise } from 'dependency-cruiser';
import type { ICruiseResult } from 'dependency-cruiser';
import { afterEach, describe, expect, it } from 'vitest';
import config from '../../../.dependency-cruiser.mjs';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Writes `files` (path → the paths it imports) under a temp root and returns every violated rule as `rule: from → to`. */
async function violations(
  files: Record<string, readonly string[]>,
  sources: Record<string, string> = {},
): Promise<string[]> {
  dir = await mkdtemp(join(tmpdir(), 'import-rules-'));
  for (const [file, text] of Object.entries(sources)) {
    await mkdir(join(dir, dirname(file)), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  for (const [file, imports] of Object.entries(files)) {
    const lines = imports.map((target, i) => {
      const from = dirname(file);
      const relative = target.startsWith('npm:') ? target.slice(4) : join(...from.split('/').map(() => '..'), target);
      return `import * as m${i} from '${relative}';\nexport const u${i} = m${i};`;
    });
    await mkdir(join(dir, dirname(file)), { recursive: true });
    await writeFile(join(dir, file), `${lines.join('\n')}\nexport const x = 1;\n`);
  }
  await mkdir(join(dir, 'node_modules', 'cmd-ts'), { recursive: true });
  await writeFile(join(dir, 'node_modules', 'cmd-ts', 'package.json'), '{"name":"cmd-ts","main":"index.js"}');
  await writeFile(join(dir, 'node_modules', 'cmd-ts', 'index.js'), 'export const command = 1;\n');
  const options = { ...config.options, tsConfig: undefined, baseDir: dir, validate: true, ruleSet: config };
  const roots = ['scripts', 'dagger'].filter((root) =>
    [...Object.keys(files), ...Object.keys(sources)].some((f) => f.startsWith(`${root}/`)),
  );
  const result = (await cruise(roots, options)).output as ICruiseResult;
  return result.summary.violations.map((v) =>
    v.cycle === undefined
      ? `${v.rule.name}: ${v.from} → ${v.to}`
      : `${v.rule.name}: ${[v.from, ...v.cycle.map((c) => c.name)].join(' → ')}`,
  );
}

describe('the import rules (.dependency-cruiser.mjs)', () => {
  it('the library never imports an entry point, a command or a test', async () => {
    const found = await violations({
      'scripts/promote.ts': ['scripts/lib/channel/decide.ts'],
      'scripts/commands/run.ts': [],
      'scripts/lib/channel/decide.ts': ['scripts/promote.ts', 'scripts/commands/run.ts'],
      'scripts/lib/lock/check.ts': ['test/support/fake.ts'],
      'test/support/fake.ts': [],
    });
    expect(found).toContain('lib-not-entry-points: scripts/lib/channel/decide.ts → scripts/promote.ts');
    expect(found).toContain('lib-not-entry-points: scripts/lib/channel/decide.ts → scripts/commands/run.ts');
    expect(found).toContain('lib-not-tests: scripts/lib/lock/check.ts → test/support/fake.ts');
  });

  it('cmd-ts commands live under scripts/: in the library only the top-level handler uses cmd-ts', async () => {
    const found = await violations({
      'scripts/commands/status.ts': ['npm:cmd-ts'],
      'scripts/lib/cli/run-cli.ts': ['npm:cmd-ts'],
      'scripts/lib/host/status-command.ts': ['npm:cmd-ts'],
    });
    expect(found).toEqual(['commands-in-scripts: scripts/lib/host/status-command.ts → node_modules/cmd-ts/index.js']);
  });

  it('@kubernetes/client-node is imported for its types or with import(), never loaded with the module', async () => {
    const pkg = 'node_modules/@kubernetes/client-node';
    const found = await violations(
      {},
      {
        [`${pkg}/package.json`]:
          '{"name":"@kubernetes/client-node","type":"module","main":"index.js","types":"index.d.ts"}',
        [`${pkg}/index.js`]: 'export class KubeConfig {}\n',
        [`${pkg}/index.d.ts`]: 'export declare class KubeConfig {}\n',
        'scripts/lib/ports/kube.ts':
          "import type { KubeConfig } from '@kubernetes/client-node';\nexport const f = (k: KubeConfig) => k;\n",
        'scripts/lib/ports/kube-client-node.ts':
          "export const load = async () => (await import('@kubernetes/client-node')).KubeConfig;\n",
        'scripts/lib/pharos/kube-client.ts':
          "import { KubeConfig } from '@kubernetes/client-node';\nexport const k = new KubeConfig();\n",
      },
    );
    expect(found).toEqual([`client-node-lazy: scripts/lib/pharos/kube-client.ts → ${pkg}/index.js`]);
  });

  it('ports/ imports no domain folder; errors/ and other ports are fine', async () => {
    const found = await violations({
      'scripts/lib/ports/exec.ts': ['scripts/lib/errors/toolkit-error.ts', 'scripts/lib/ports/clock.ts'],
      'scripts/lib/ports/kube.ts': ['scripts/lib/host/host-paths.ts'],
      'scripts/lib/ports/clock.ts': [],
      'scripts/lib/errors/toolkit-error.ts': [],
      'scripts/lib/host/host-paths.ts': [],
    });
    expect(found).toEqual(['ports-no-domain: scripts/lib/ports/kube.ts → scripts/lib/host/host-paths.ts']);
  });

  it('the host core imports no applier, and no applier imports the other', async () => {
    const found = await violations({
      'scripts/lib/host/run-tick.ts': ['scripts/lib/host/compose/up-stacks.ts'],
      'scripts/lib/host/compose/up-stacks.ts': [
        'scripts/lib/host/tick-context.ts',
        'scripts/lib/host/chart/helm-port.ts',
      ],
      'scripts/lib/host/chart/helm-port.ts': [
        'scripts/lib/host/tick-context.ts',
        'scripts/lib/host/chart/chart-error.ts',
      ],
      'scripts/lib/host/chart/chart-error.ts': [],
      'scripts/lib/host/tick-context.ts': [],
    });
    expect(found).toContain(
      'host-core-no-applier: scripts/lib/host/run-tick.ts → scripts/lib/host/compose/up-stacks.ts',
    );
    expect(found).toContain(
      'applier-not-other-applier: scripts/lib/host/compose/up-stacks.ts → scripts/lib/host/chart/helm-port.ts',
    );
    expect(found.filter((f) => f.includes('chart-error') || f.includes('→ scripts/lib/host/tick-context'))).toEqual([]);
  });

  it('ownership/ imports neither delivery/ nor takeover/; catalogue/ does not import fingerprint/', async () => {
    const found = await violations({
      'scripts/lib/ownership/fence.ts': ['scripts/lib/delivery/claim.ts', 'scripts/lib/takeover/acquire.ts'],
      'scripts/lib/delivery/claim.ts': [],
      'scripts/lib/takeover/acquire.ts': [],
      'scripts/lib/catalogue/parse.ts': ['scripts/lib/fingerprint/hash.ts'],
      'scripts/lib/fingerprint/hash.ts': [],
    });
    expect(found).toEqual([
      'catalogue-not-fingerprint: scripts/lib/catalogue/parse.ts → scripts/lib/fingerprint/hash.ts',
      'ownership-not-delivery-or-takeover: scripts/lib/ownership/fence.ts → scripts/lib/delivery/claim.ts',
      'ownership-not-delivery-or-takeover: scripts/lib/ownership/fence.ts → scripts/lib/takeover/acquire.ts',
    ]);
  });

  it("takeover's rooms import nothing else of takeover/: runtimes and replacements not each other, watch/ no runtime", async () => {
    const found = await violations({
      'scripts/lib/takeover/session.ts': [
        'scripts/lib/takeover/runtime/docker-runtime.ts',
        'scripts/lib/takeover/replacement/scale-to-zero.ts',
        'scripts/lib/takeover/watch/follow-saves.ts',
      ],
      'scripts/lib/takeover/runtime/docker-runtime.ts': [
        'scripts/lib/takeover/runtime/local-runtime.ts',
        'scripts/lib/takeover/replacement/scale-to-zero.ts',
      ],
      'scripts/lib/takeover/runtime/local-runtime.ts': [],
      'scripts/lib/takeover/replacement/scale-to-zero.ts': ['scripts/lib/takeover/runtime/local-runtime.ts'],
      'scripts/lib/takeover/watch/follow-saves.ts': [
        'scripts/lib/takeover/watch/file-watcher.ts',
        'scripts/lib/takeover/runtime/docker-runtime.ts',
        'scripts/lib/takeover/takeover-context.ts',
      ],
      'scripts/lib/takeover/watch/file-watcher.ts': [],
      'scripts/lib/takeover/takeover-context.ts': [],
    });
    expect(found.filter((f) => f.startsWith('takeover-rooms-apart'))).toEqual([
      'takeover-rooms-apart: scripts/lib/takeover/replacement/scale-to-zero.ts → scripts/lib/takeover/runtime/local-runtime.ts',
      'takeover-rooms-apart: scripts/lib/takeover/runtime/docker-runtime.ts → scripts/lib/takeover/replacement/scale-to-zero.ts',
      'takeover-rooms-apart: scripts/lib/takeover/watch/follow-saves.ts → scripts/lib/takeover/runtime/docker-runtime.ts',
      'takeover-rooms-apart: scripts/lib/takeover/watch/follow-saves.ts → scripts/lib/takeover/takeover-context.ts',
    ]);
  });

  it('steps/ knows no reconcile', async () => {
    const found = await violations({
      'scripts/lib/steps/run-steps.ts': ['scripts/lib/host/tick-context.ts', 'scripts/lib/ports/clock.ts'],
      'scripts/lib/host/tick-context.ts': [],
      'scripts/lib/ports/clock.ts': [],
    });
    expect(found).toEqual(['steps-no-domain: scripts/lib/steps/run-steps.ts → scripts/lib/host/tick-context.ts']);
  });

  it('the Dagger module imports only the library', async () => {
    const found = await violations({
      'dagger/src/index.ts': ['scripts/lib/lock/check.ts', 'scripts/promote.ts', 'test/support/fake.ts'],
      'scripts/lib/lock/check.ts': [],
      'scripts/promote.ts': [],
      'test/support/fake.ts': [],
    });
    expect(found).toEqual([
      'dagger-only-library: dagger/src/index.ts → scripts/promote.ts',
      'dagger-only-library: dagger/src/index.ts → test/support/fake.ts',
    ]);
  });

  it('no cycle between files, and none between library folders', async () => {
    const found = await violations({
      'scripts/lib/channel/a.ts': ['scripts/lib/lock/b.ts'],
      'scripts/lib/lock/b.ts': ['scripts/lib/lock/c.ts'],
      'scripts/lib/lock/c.ts': ['scripts/lib/channel/d.ts'],
      'scripts/lib/channel/d.ts': [],
      'scripts/lib/signing/e.ts': ['scripts/lib/signing/f.ts'],
      'scripts/lib/signing/f.ts': ['scripts/lib/signing/e.ts'],
    });
    expect(found).toContain(
      'no-module-cycle: scripts/lib/signing/e.ts → scripts/lib/signing/f.ts → scripts/lib/signing/e.ts',
    );
    expect(found.some((f) => f.startsWith('no-folder-cycle: scripts/lib/channel → scripts/lib/lock'))).toBe(true);
    expect(found.some((f) => f.startsWith('no-module-cycle: scripts/lib/channel/a.ts'))).toBe(false);
  });

  it('no folder cycle is excepted: runner/ and delivery/ importing each other fail', async () => {
    const found = await violations({
      'scripts/lib/delivery/deliver.ts': ['scripts/lib/runner/run.ts'],
      'scripts/lib/runner/run.ts': ['scripts/lib/delivery/plan.ts'],
      'scripts/lib/delivery/plan.ts': [],
    });
    expect(found.filter((f) => f.startsWith('no-folder-cycle'))).toEqual([
      'no-folder-cycle: scripts/lib/delivery → scripts/lib/runner → scripts/lib/delivery',
      'no-folder-cycle: scripts/lib/runner → scripts/lib/delivery → scripts/lib/runner',
    ]);
  });

  it('ownership/ does not import deploy/ either', async () => {
    const found = await violations({
      'scripts/lib/ownership/cleanup.ts': ['scripts/lib/deploy/deploy.ts'],
      'scripts/lib/deploy/deploy.ts': [],
    });
    expect(found).toEqual([
      'ownership-not-delivery-or-takeover: scripts/lib/ownership/cleanup.ts → scripts/lib/deploy/deploy.ts',
    ]);
  });

  it('registry-seed/ reads the catalogue and its Dockerfiles only: the deploy calls it, never the reverse', async () => {
    const found = await violations({
      'scripts/lib/registry-seed/seed-bases.ts': [
        'scripts/lib/dockerfile/analyse.ts',
        'scripts/lib/catalogue/catalogue.ts',
        'scripts/lib/deploy/deploy-steps.ts',
      ],
      'scripts/lib/dockerfile/analyse.ts': [],
      'scripts/lib/catalogue/catalogue.ts': [],
      'scripts/lib/deploy/deploy-steps.ts': [],
    });
    expect(found).toEqual([
      'registry-seed-reads-dockerfiles-only: scripts/lib/registry-seed/seed-bases.ts → scripts/lib/deploy/deploy-steps.ts',
    ]);
  });

  it('a tree that keeps the rules has no violation', async () => {
    expect(
      await violations({
        'scripts/promote.ts': ['scripts/commands/run.ts', 'scripts/lib/channel/decide.ts'],
        'scripts/commands/run.ts': ['scripts/lib/host/run-tick.ts', 'scripts/lib/host/compose/up-stacks.ts'],
        'scripts/lib/host/run-tick.ts': ['scripts/lib/steps/run-steps.ts', 'scripts/lib/ports/clock.ts'],
        'scripts/lib/host/compose/up-stacks.ts': ['scripts/lib/host/run-tick.ts'],
        'scripts/lib/steps/run-steps.ts': ['scripts/lib/ports/clock.ts'],
        'scripts/lib/ports/clock.ts': ['scripts/lib/errors/toolkit-error.ts'],
        'scripts/lib/errors/toolkit-error.ts': [],
        'scripts/lib/channel/decide.ts': ['scripts/lib/errors/toolkit-error.ts'],
        'dagger/src/index.ts': ['scripts/lib/channel/decide.ts'],
      }),
    ).toEqual([]);
  });
});
