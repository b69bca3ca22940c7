// Which applier a host's tick runs: HEPHAESTUS_STACKS=chart is a chart host (docs/chart-host.md), anything else Compose.
import { chartApplier } from '../lib/host/chart/chart-applier.ts';
import { composeApplier } from '../lib/host/compose/compose-applier.ts';
import type { HostConfig } from '../lib/host/host-config.ts';
import { stacksOf } from '../lib/host/host-paths.ts';
import type { TickApplier } from '../lib/host/tick-applier.ts';

export function tickApplier(config: HostConfig): TickApplier {
  return stacksOf(config.HEPHAESTUS_STACKS).includes('chart') ? chartApplier : composeApplier;
}
