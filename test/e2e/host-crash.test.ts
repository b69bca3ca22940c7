// A tick SIGKILLed at every step boundary, then a normal tick: the host converges to the channel's target, and
// applied.json never names a release that was not fully up.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPOSE_TICK_STEPS } from '../../scripts/lib/host/compose/compose-applier.ts';
import { spawn } from 'node:child_process';
import { makeHostLab } from '../support/host/host-lab.ts';
import type { Host, HostLab } from '../support/host/host-lab.ts';

let lab: HostLab;
let host: Host;
const sets: Record<string, string>[] = [];
const BOUNDARIES = [...COMPOSE_TICK_STEPS.map((step) => step.name), 'metrics'];

/** The signal that ended the crash run (SIGKILL when it reached the step). */
async function crashTick(step: string): Promise<string | null> {
  const script = join(import.meta.dirname, '..', 'support', 'host', 'crash-tick.ts');
  const child = spawn(process.execPath, [script, step], {
    env: { ...process.env, ...host.env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
}

/** Every non-migration service runs `images`' digest and is healthy (or has no healthcheck). */
async function fullyUp(images: Record<string, string>): Promise<boolean> {
  const containers = await host.containers();
  const expected: Record<string, string | undefined> = {
    api: images.HEPHAESTUS_IMAGE_API,
    worker: images.HEPHAESTUS_IMAGE_WORKER,
    postgres: images.HEPHAESTUS_IMAGE_POSTGRES,
  };
  return Object.entries(expected).every(([service, image]) =>
    containers.some(
      (c) =>
        c.service === service && c.running && c.image === image && (c.health === undefined || c.health === 'healthy'),
    ),
  );
}

beforeAll(async () => {
  lab = await makeHostLab();
  sets.push(await lab.build('c0'), await lab.build('c1'));
  const commit = await lab.repo.git(['rev-parse', 'HEAD']);
  await lab.tag('v1.0.0', commit);
  await lab.publishLock('v1.0.0', commit, sets[0] ?? {});
  await lab.promote('staging', ['--release', 'v1.0.0']);
  host = await lab.host('staging', { waitTimeout: 30 });
  const first = await host.tick();
  if (first.code !== 0) throw new Error(`first install failed: ${first.stderr}`);
});
afterAll(async () => {
  await lab?.cleanup();
});

describe('crash at every step boundary', () => {
  it.each(BOUNDARIES.map((step, i) => [i + 1, step] as const))(
    'SIGKILL after step %i (%s), then a normal tick converges',
    async (n, step) => {
      const tag = `v1.${n}.0`;
      const images = sets[n % 2] ?? {};
      const commit = await lab.commit({ RELEASE: `${tag}\n` }, tag);
      await lab.tag(tag, commit);
      await lab.publishLock(tag, commit, images);
      await lab.promote('staging', ['--release', tag]);
      const previous = await host.applied();

      expect(await crashTick(step)).toBe('SIGKILL');
      const afterCrash = await host.applied();
      if (afterCrash?.release === tag) expect(await fullyUp(images)).toBe(true);
      else expect(afterCrash).toEqual(previous);
      // Only the record step and later may name the new release.
      expect(afterCrash?.release === tag).toBe(n >= BOUNDARIES.indexOf('record') + 1);

      const tick = await host.tick();
      expect(tick.code, tick.stderr).toBe(0);
      expect(await host.applied()).toMatchObject({ release: tag, commit });
      expect(await fullyUp(images)).toBe(true);
      expect(await host.metrics()).toContain('hephaestus_deploy_reconcile_success 1\n');
    },
  );
});
