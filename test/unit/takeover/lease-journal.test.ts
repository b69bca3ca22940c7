import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newLease } from '../../../scripts/lib/ownership/index.ts';
import { journal, runLeaseSteps } from '../../../scripts/lib/takeover/lease-journal.ts';
import type { LeaseState, LeaseStep, TakeoverContext } from '../../../scripts/lib/takeover/index.ts';
import { systemClock } from '../../../scripts/lib/ports/clock.ts';

let dir: string;
let ran: string[];
const holder = { checkout: '/w/platform', workstation: 'ws' };
const record = newLease(holder, ['pharos'], 'c'.repeat(40), new Date('2026-10-14T12:00:00Z'), 3_600_000);
const state = (): LeaseState => ({ record, projects: [], images: [], replacements: [], runtimes: [] });
const step = (name: string, fail = false): LeaseStep => ({
  name,
  async run() {
    if (fail) throw new Error(`${name} failed`);
    ran.push(name);
    return { summary: name };
  },
});
const ctx = (): TakeoverContext =>
  ({
    paths: { dir, receipt: join(dir, 'receipt.json'), journal: join(dir, 'journal.jsonl') },
    clock: systemClock,
    run: 'r1',
    log: () => {},
  }) as unknown as TakeoverContext;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-steps-'));
  ran = [];
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('runLeaseSteps()', () => {
  it('a retried phase continues after the last step a killed run journaled', async () => {
    await expect(runLeaseSteps(ctx(), state(), [step('a'), step('b'), step('c', true)], 'handback')).rejects.toThrow(
      'c failed',
    );
    ran = [];
    await runLeaseSteps(ctx(), state(), [step('a'), step('b'), step('c')], 'handback');
    expect(ran).toEqual(['c']);
  });

  it('a phase interrupted by another phase starts over', async () => {
    await runLeaseSteps(ctx(), state(), [step('mark'), step('stop')], 'handback');
    await journal(ctx(), state(), 'acquire:check', { fresh: false });
    ran = [];
    await runLeaseSteps(ctx(), state(), [step('mark'), step('stop')], 'handback');
    expect(ran).toEqual(['mark', 'stop']);
  });

  it('a fresh acquire with the same id (same second) is a new lease: nothing of the old one is skipped', async () => {
    await journal(ctx(), state(), 'acquire:check', { fresh: true });
    await runLeaseSteps(ctx(), state(), [step('record'), step('window')], 'acquire');
    await journal(ctx(), state(), 'acquire:check', { fresh: true });
    ran = [];
    await runLeaseSteps(ctx(), state(), [step('record'), step('window')], 'acquire');
    expect(ran).toEqual(['record', 'window']);
  });
});
