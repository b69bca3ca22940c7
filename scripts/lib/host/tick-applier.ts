import type { ServiceStatus } from './host-status.ts';
import type { TickContext, TickState, TickStep } from './tick-context.ts';

/**
 * What an applier (compose/, chart/) plugs into the tick: its step list, the shared steps around its own, and its
 * state. The shell picks one from HEPHAESTUS_STACKS; the core knows none of them.
 */
export interface TickApplier<S extends TickState = TickState> {
  readonly name: string;
  readonly steps: readonly TickStep<S>[];
  /** The state a tick starts from: the shared fields and the applier's own, empty. */
  readonly state: () => S;
  /** What `status` lists as running; an applier without it lists nothing. */
  readonly services?: (ctx: TickContext) => Promise<ServiceStatus[]>;
}
