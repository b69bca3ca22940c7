import { processAlive } from '../../scripts/lib/ports/pid-lock.ts';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../scripts/lib/steps/jsonl-journal.ts';
import { isLeaseShaped } from '../../scripts/lib/ownership/index.ts';
import { ACQUIRE_STEPS, HANDBACK_STEPS, REPLACED_ANNOTATION } from '../../scripts/lib/takeover/index.ts';
import { startTestTarget } from '../support/takeover/test-target.ts';
import type { TestTarget } from '../support/takeover/test-target.ts';
import {
  crashSite,
  crashTakeover,
  startTakeover,
  stopAllTakeovers,
  takeover,
} from '../support/takeover/takeover-cli.ts';

let t: TestTarget;

beforeAll(async () => {
  t = await startTestTarget({ syncTimeout: '30s' });
  t.sim.start(50);
});
afterAll(async () => {
  await stopAllTakeovers();
  await t?.stop();
});

const alive = processAlive;

const BOUNDARIES = [
  'acquire:check',
  ...ACQUIRE_STEPS.map((s) => `acquire:${s.name}`),
  'replace',
  'runtime',
  ...HANDBACK_STEPS.map((s) => `handback:${s.name}`),
];

describe('crash at every step boundary of acquire and hand-back', () => {
  it.each(BOUNDARIES.map((step, i) => [step, i % 2 === 0 ? 'takeover release' : 'a new takeover start'] as const))(
    'SIGKILL after %s, then %s: no orphan window, no orphan record, workloads as the receipt says',
    async (step, recovery) => {
      const journal = join(t.repo.dir, '.local/metallo', t.name, 'journal.jsonl');
      const crashed = await crashTakeover(crashSite(t), step, { timeoutMs: 90_000 });
      expect(crashed.code, crashed.stderr).toBe(128); // killed by a signal, not an exit
      expect((await readJournal(journal)).at(-1)?.step).toBe(step);

      if (recovery === 'takeover release') {
        const run = await takeover(t, 'release');
        expect(run.code, run.stderr).toBe(0);
      } else {
        const again = startTakeover(t, ['compat-web', '--renew-every', '1m']);
        await again.waitFor(/holding \[themelio-compat\]/);
        expect(await t.replicas('themelio-compat', 'compat-web')).toBe(0);
        expect((await t.windows()).filter(isLeaseShaped)).toHaveLength(1);
        again.child.kill('SIGTERM');
        expect(await again.exited, again.stderr()).toBe(0);
      }

      expect(await t.lease()).toBeUndefined();
      expect((await t.windows()).some(isLeaseShaped)).toBe(false);
      expect(await t.replicas('themelio-compat', 'compat-web')).toBe(2);
      const web = (await t.kube.get('Deployment', 'themelio-compat', 'compat-web')) as any;
      expect(web.metadata.annotations?.[REPLACED_ANNOTATION]).toBeUndefined();
      expect(web.spec.template.spec.containers[0].image).toBe(t.receipt.images['compat-web']?.reference);
      const app = (await t.kube.get('Application', 'argocd', 'themelio-compat')) as any;
      expect(app.status).toMatchObject({
        sync: { status: 'Synced', revision: t.receipt.commit },
        health: { status: 'Healthy' },
      });
      const pids = (await readJournal(journal)).filter((e) => e.step === 'runtime').map((e) => e['pid'] as number);
      expect(pids.filter(alive)).toEqual([]);
    },
  );
});
