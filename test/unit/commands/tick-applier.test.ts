import { describe, expect, it } from 'vitest';
import { tickApplier } from '../../../scripts/commands/tick-applier.ts';
import type { HostConfig } from '../../../scripts/lib/host/host-config.ts';

const config = (stacks: string) => ({ HEPHAESTUS_STACKS: stacks }) as HostConfig;

describe('tickApplier(): the command gives the tick its applier from HEPHAESTUS_STACKS', () => {
  it('"chart" is a chart host; Compose stacks (in any separator) are a Compose host', () => {
    expect(tickApplier(config('chart')).name).toBe('chart');
    expect(tickApplier(config('core app')).name).toBe('compose');
    expect(tickApplier(config('core,app')).name).toBe('compose');
  });

  it('only the Compose applier lists running services for status', () => {
    expect(tickApplier(config('core')).services).toBeTypeOf('function');
    expect(tickApplier(config('chart')).services).toBeUndefined();
  });
});
