import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { exec, execOk } from '../../scripts/lib/ports/exec.ts';
import { gitEnv } from '../../scripts/lib/ports/git.ts';
import { readReceipt } from '../../scripts/lib/target/receipt.ts';
import { readJournal } from '../../scripts/lib/steps/jsonl-journal.ts';
import { DELIVERY_STEPS } from '../../scripts/lib/delivery/delivery-steps.ts';
import { startTestDevbox } from '../support/devbox/test-devbox.ts';
import type { TestDevbox } from '../support/devbox/test-devbox.ts';

const TOP = resolve(import.meta.dirname, '../..');
const NODE = join(TOP, 'node_modules/.bin/node');

let box: TestDevbox;

async function reconcile(repo: string): Promise<{ code: number; stderr: string }> {
  const args = [
    join(TOP, 'scripts/devbox.ts'),
    'reconcile',
    '--target',
    box.target,
    '--targets',
    box.targetsDir,
    '--repo',
    repo,
  ];
  const result = await exec(NODE, args, { timeoutMs: 170_000 });
  return { code: result.code, stderr: result.stderr };
}

/** The target runs `commit`: ConfigMap, receipt and the workloads agree, every image is in the registry, nothing holds it. */
async function expectConverged(commit: string): Promise<void> {
  const data = await box.ownershipData();
  expect(JSON.parse(data?.['revision'] ?? '""')).toBe(commit);
  expect(data?.['delivery']).toBeUndefined();
  const images = JSON.parse(data?.['images'] ?? '{}') as Record<string, string>;
  expect(Object.keys(images)).toHaveLength(5);
  for (const [name, reference] of Object.entries(images)) {
    const digest = reference.split('@')[1] ?? '';
    expect(await box.registry.digest(name, digest)).toBe(digest);
  }
  const receipt = await readReceipt(join(box.repo.dir, '.local/metallo', box.target, 'receipt.json'));
  expect(receipt?.commit).toBe(commit);
  expect(Object.fromEntries(Object.entries(receipt?.images ?? {}).map(([k, v]) => [k, v.reference]))).toEqual(images);
  const rendered = await box.argocd.workloadImages();
  expect(rendered['themelio-compat/Deployment/compat-web']).toBe(images['compat-web']);
  expect(rendered['pharos/Deployment/api']).toBe(images['api']);
}

beforeAll(async () => {
  box = await startTestDevbox();
  const first = await reconcile(box.repo.dir);
  expect(first.code, first.stderr).toBe(0);
});
afterAll(async () => {
  await box?.stop();
});

describe('delivery recovery and races', () => {
  // Killing after `release` would be a finished delivery; every earlier boundary must converge on a rerun.
  const boundaries = DELIVERY_STEPS.map((s) => s.name).filter((name) => name !== 'release');

  it.each(boundaries)('a delivery killed right after step "%s" converges when run again', async (step) => {
    const commit = await box.repo.commit(`compat after ${step}`, {
      'apps/compat/src/build.sh': `echo "built $1 $2 at ${step}"\n`,
    });
    const crashed = await exec(
      NODE,
      [join(TOP, 'test/support/devbox/crash-runner.ts'), box.targetsDir, box.target, box.repo.dir, step],
      { timeoutMs: 170_000 },
    );
    expect(crashed.code, crashed.stderr).toBe(128); // exec reports death by a signal as 128
    const journal = await readJournal(join(box.repo.dir, '.local/metallo', box.target, 'journal.jsonl'));
    expect(journal.at(-1)?.step).toBe(step);
    const builds = box.buildkit.builds.length;
    const again = await reconcile(box.repo.dir);
    expect(again.code, again.stderr).toBe(0);
    await expectConverged(commit);
    // Once the build step has completed, the rerun reads the digests of the Jobs it started instead of building again.
    if (boundaries.indexOf(step) >= boundaries.indexOf('build')) expect(box.buildkit.builds.length).toBe(builds);
  });

  it('two deliveries racing from two checkouts: one wins, the other is refused cleanly and nothing is lost', async () => {
    const other = join(box.repo.dir, '..', 'other-checkout');
    await execOk(exec, 'git', ['clone', '--quiet', box.repo.dir, other], { env: gitEnv() });
    const commit = await box.repo.commit('compat race', { 'apps/compat/src/run.sh': 'echo "race"\n' });
    await execOk(exec, 'git', ['-C', other, 'pull', '--quiet', '--ff-only'], { env: gitEnv() });
    const [a, b] = await Promise.all([reconcile(box.repo.dir), reconcile(other)]);
    const codes = [a.code, b.code].sort();
    expect(codes, `${a.stderr}\n---\n${b.stderr}`).toEqual([0, 3]);
    const loser = a.code === 3 ? a : b;
    expect(loser.stderr).toMatch(
      /Cannot deliver [0-9a-f]{12} to target "[^"]+": a delivery of [0-9a-f]{12} by .* runs until/,
    );
    const data = await box.ownershipData();
    expect(JSON.parse(data?.['revision'] ?? '""')).toBe(commit);
    expect(data?.['delivery']).toBeUndefined();
  });
});
