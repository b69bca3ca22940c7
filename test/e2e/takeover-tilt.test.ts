// make tilt cannot run here (no Tilt): every command the Tiltfile names is a make target that exists and works,
// against a test target (test Kubernetes API server, Argo CD simulator) with a running takeover start.
import { appendFile, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { startTestTarget } from '../support/takeover/test-target.ts';
import type { TestTarget } from '../support/takeover/test-target.ts';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { NODE, TAKEOVER, startTakeover, stopAllTakeovers, targetArgs } from '../support/takeover/takeover-cli.ts';

const TOP = resolve(import.meta.dirname, '../..');
let t: TestTarget;

const make = async (target: string, extra: string[] = []) => {
  const result = await exec(
    'make',
    [
      '--no-print-directory',
      '-C',
      TOP,
      target,
      `TARGET=${t.name}`,
      `TARGETS=${t.targetsDir}`,
      `REPO=${t.repo.dir}`,
      ...extra,
    ],
    { timeoutMs: 120_000 },
  );
  return { code: result.code, stdout: result.stdout.toString('utf8'), stderr: result.stderr };
};

/** The make targets the Tiltfile runs: every `['make', '<target>']` argv. */
async function tiltMakeTargets(): Promise<string[]> {
  const text = await readFile(join(TOP, 'Tiltfile'), 'utf8');
  return [...text.matchAll(/\['make', '([a-z-]+)'\]/g)].map((m) => m[1]!);
}

beforeAll(async () => {
  t = await startTestTarget({ syncTimeout: '30s' });
  await appendFile(join(t.repo.dir, 'apps/compat/src/run.sh'), '# local edit\n');
  t.sim.start(50);
});
afterAll(async () => {
  await stopAllTakeovers();
  await t?.stop();
});

describe('make tilt', () => {
  it('the Tiltfile names a server, a saved-file trigger and the four buttons, each a make target that exists', async () => {
    const targets = await tiltMakeTargets();
    expect(targets).toEqual([
      'takeover-start',
      'takeover-plan',
      'takeover-handback',
      'reconcile',
      'takeover-status',
      'takeover-logs',
    ]);
    const tiltfile = await readFile(join(TOP, 'Tiltfile'), 'utf8');
    expect(tiltfile).toMatch(/'takeover-plan',\n\s+cmd=.*\n\s+deps=\[repo\]/);
    for (const target of targets) expect((await make(target, ['--dry-run'])).code, target).toBe(0);
  });

  it('without Tilt installed, make tilt says so and exits 2', async () => {
    // PATH without Tilt (this machine has none; a developer's would start it).
    const result = await exec('make', ['--no-print-directory', '-C', TOP, 'tilt'], {
      env: { ...process.env, PATH: `${join(TOP, 'node_modules/.bin')}:/usr/bin:/bin` },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('tilt is not installed');
  });

  it('the saved-file trigger, status, log snapshot and hand-back buttons work on a running takeover', async () => {
    const plan = await make('takeover-plan');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/compat-web\s+themelio-compat\s+candidate/);

    const running = startTakeover(t, ['compat-web', '--renew-every', '1m']);
    await running.waitFor(/watching saved files/);
    const status = await make('takeover-status');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('lease: held');
    expect(status.stdout).toMatch(/runtime: native compat-web \(pid \d+\) running/);
    expect(status.stdout).toContain(
      'replacement: scale-to-zero Deployment themelio-compat/compat-web (was 2 replicas)',
    );

    await expect
      .poll(async () => (await make('takeover-logs')).stdout, { timeout: 10_000 })
      .toContain('app=from-the-cluster');

    const handBack = await make('takeover-handback');
    expect(handBack.code, handBack.stderr).toBe(0);
    expect(handBack.stdout).toMatch(/handed back \(process \d+ ended\)/);
    expect(await running.exited).toBe(0);
    expect(await t.lease()).toBeUndefined();
    expect(await t.replicas('themelio-compat', 'compat-web')).toBe(2);
    // With nothing running, hand-back is a release: nothing to do.
    const again = await make('takeover-handback');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`no lease on ${t.name}`);
  });
});

describe('takeover watch', () => {
  it('prints one JSON line per save with what it moves, ignores editor temporaries, and ends on SIGTERM with 0', async () => {
    const child = spawn(NODE, [TAKEOVER, 'watch', '--json', '--debounce', '100ms', ...targetArgs(t)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
    await expect.poll(() => err, { timeout: 30_000 }).toContain('watching saved files');
    await writeFile(join(t.repo.dir, 'apps/compat/src/.run.sh.swp'), 'swap');
    await writeFile(join(t.repo.dir, 'contracts/api.json'), '{"changed": true}\n');
    await expect.poll(() => out, { timeout: 30_000 }).toContain('\n');
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { paths: string[]; restart: string[]; reconcile: string[]; candidates: string[] });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      paths: ['contracts/api.json'],
      restart: [],
      reconcile: ['migrate', 'worker'],
      candidates: ['api'],
    });
    child.kill('SIGTERM');
    expect(await exited, err).toBe(0);
  });
});
