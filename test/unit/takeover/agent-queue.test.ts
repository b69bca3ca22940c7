import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../../scripts/lib/steps/jsonl-journal.ts';
import { systemClock } from '../../../scripts/lib/ports/clock.ts';
import { CLEANUP_STEPS } from '../../../scripts/lib/takeover/handback-cleanup.ts';
import { journal } from '../../../scripts/lib/takeover/lease-journal.ts';
import type { LeaseState, TakeoverContext } from '../../../scripts/lib/takeover/takeover-context.ts';
import type { LocalRuntime, WorkloadReplacement } from '../../../scripts/lib/takeover/index.ts';

let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'pharos-17-agents-'))));
afterAll(() => rm(dir, { recursive: true, force: true }));

const record = {
  schema: 1,
  holder: { checkout: '/c', workstation: 'w' },
  applications: ['pharos'],
  commit: 'a'.repeat(40),
  acquired: '2026-11-30T12:00:00Z',
  expires: '2026-11-30T13:00:00Z',
  state: 'handing-back',
} as const;

describe('the hand-back agents step', () => {
  it('queues the namespace-scoped agent removal until both local runtimes have stopped', async () => {
    const events: string[] = [];
    // api stops after 3 polls, worker after 6: removal must come after both.
    const polls: Record<string, number> = { api: 3, worker: 6 };
    const runtime: LocalRuntime = {
      name: 'fake',
      start: async () => ({ image: '', command: [] }),
      stop: async () => false,
      running: async (h) => {
        const left = (polls[h.image] ?? 0) - 1;
        polls[h.image] = left;
        if (left === 0) events.push(`${h.image} stopped`);
        return left > 0;
      },
    };
    const telepresence: WorkloadReplacement = {
      name: 'telepresence',
      replace: async (workload, lease) => ({ workload, lease }),
      restore: async () => true,
      find: async () => [],
      removeAgents: async (namespace) => {
        events.push(`uninstall ${namespace}`);
        return ['api', 'worker'];
      },
    };
    const ctx = {
      paths: { dir, journal: join(dir, 'journal.jsonl'), receipt: '' },
      clock: systemClock,
      run: 'r1',
      runtimes: { fake: runtime },
      replacements: { telepresence },
      log: () => {},
      pollMs: 5,
    } as unknown as TakeoverContext;
    const state = { record, projects: [], images: [], replacements: [], runtimes: [] } as unknown as LeaseState;
    await journal(ctx, state, 'acquire:check', { fresh: true });
    for (const [image, container] of [
      ['api', 'c-api'],
      ['worker', 'c-worker'],
    ] as const) {
      await journal(ctx, state, 'runtime', { image, runtime: 'fake', container, argv: [] });
      await journal(ctx, state, 'replace', {
        image,
        workload: { kind: 'Deployment', namespace: 'pharos', name: image },
        via: 'telepresence',
      });
    }
    const agents = CLEANUP_STEPS.find((s) => s.name === 'agents')!;
    const result = await agents.run(ctx, state);
    expect(events).toEqual(['api stopped', 'worker stopped', 'uninstall pharos']);
    expect(result.summary).toBe('removed the traffic agents of pharos [api, worker]');
    const cleanups = (await readJournal(ctx.paths.journal)).filter((e) => e.step === 'handback:cleanup');
    expect(cleanups.map((e) => e['action'])).toEqual(['agents-queued', 'agents']);
    expect(cleanups[0]?.['waiting']).toEqual(['api (container c-api)', 'worker (container c-worker)']);
  });
});
