// When the Docker runtimes join Telepresence's Docker mode, and that the hand-back then quits its daemon even when
// nothing was replaced (a start that failed after connecting).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../../scripts/lib/steps/jsonl-journal.ts';
import { systemClock } from '../../../scripts/lib/ports/clock.ts';
import { CLEANUP_STEPS } from '../../../scripts/lib/takeover/handback-cleanup.ts';
import { joinClusterNetwork } from '../../../scripts/lib/takeover/start-runtime.ts';
import type { LeaseState, TakeoverContext } from '../../../scripts/lib/takeover/takeover-context.ts';
import type { TakeoverTarget } from '../../../scripts/lib/takeover/resolve-workloads.ts';
import type { WorkloadReplacement } from '../../../scripts/lib/takeover/index.ts';

let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'pharos-join-network-'))));
afterAll(() => rm(dir, { recursive: true, force: true }));

const record = {
  schema: 1,
  holder: { checkout: '/c', workstation: 'w' },
  applications: ['pharos'],
  commit: 'a'.repeat(40),
  acquired: '2026-11-30T12:00:00Z',
  expires: '2026-11-30T13:00:00Z',
  state: 'held',
} as const;

const target = (name: string, runtime: string): TakeoverTarget =>
  ({
    image: { name, takeover: { runtime } },
    workloads: [{ kind: 'Deployment', namespace: 'pharos', name }],
  }) as unknown as TakeoverTarget;

function context(journalName: string, events: string[], dockerNetwork?: boolean): TakeoverContext {
  const telepresence: WorkloadReplacement = {
    name: 'telepresence',
    replace: async (workload, lease) => ({ workload, lease }),
    restore: async () => false,
    find: async () => [],
    removeAgents: async (namespace) => {
      events.push(`removeAgents ${namespace}`);
      return [];
    },
  };
  return {
    paths: { dir, journal: join(dir, journalName), receipt: '' },
    clock: systemClock,
    run: 'r1',
    runtimes: {},
    replacements: { telepresence },
    log: (line: string) => events.push(`log ${line}`),
    pollMs: 5,
    ...(dockerNetwork
      ? {
          dockerNetwork: async (namespace: string) => {
            events.push(`dockerNetwork ${namespace}`);
            return 'container:tp-dev-pharos-cn';
          },
        }
      : {}),
  } as unknown as TakeoverContext;
}
const stateOf = () => ({ record, projects: [], images: [], replacements: [], runtimes: [] }) as unknown as LeaseState;

describe("the Docker runtimes and Telepresence's Docker mode", () => {
  it('Docker runtimes only: journal connect, then join the daemon network; the hand-back quits it with nothing replaced', async () => {
    const events: string[] = [];
    const ctx = context('docker-only.jsonl', events, true);
    const state = stateOf();
    expect(await joinClusterNetwork(ctx, state, [target('api', 'docker'), target('worker', 'docker')])).toBe(
      'container:tp-dev-pharos-cn',
    );
    const steps = (await readJournal(ctx.paths.journal)).map((e) => e.step);
    expect(steps).toEqual(['connect']);
    expect(events.filter((e) => !e.startsWith('log'))).toEqual(['dockerNetwork pharos']);
    const agents = CLEANUP_STEPS.find((s) => s.name === 'agents')!;
    await agents.run(ctx, state);
    expect(events.at(-1)).toBe('removeAgents pharos');
  });

  it('a native runtime beside them keeps Telepresence on the host, and says the containers get no cluster DNS', async () => {
    const events: string[] = [];
    const ctx = context('mixed.jsonl', events, true);
    expect(await joinClusterNetwork(ctx, stateOf(), [target('api', 'docker'), target('web', 'native')])).toBe(
      undefined,
    );
    expect(events).toEqual([
      'log Docker and native runtimes together: Telepresence runs on the host, so the containers get no cluster DNS',
    ]);
  });

  it('without Telepresence (no Docker mode to join) nothing connects', async () => {
    const events: string[] = [];
    expect(await joinClusterNetwork(context('none.jsonl', events), stateOf(), [target('api', 'docker')])).toBe(
      undefined,
    );
    expect(events).toEqual([]);
  });
});
