import type { ComposeProject } from '../../ports/compose.ts';
import { emptyState } from '../tick-context.ts';
import type { TickState } from '../tick-context.ts';
import type { StackService } from './stack-config.ts';

/** A stack as rendered for one target. */
export interface RenderedStack {
  readonly stack: string;
  readonly project: ComposeProject;
  readonly services: readonly StackService[];
}

/** What a Compose host's tick learns besides the shared state. */
export interface ComposeTickState extends TickState {
  /** Every stack of HEPHAESTUS_STACKS as rendered for the target (set by render). */
  stacks: RenderedStack[];
  /** The release applied last, rendered with its own worktree and retained lock (set by identify-worker; stop-worker stops its workers, a failed up restores it). */
  previous: { readonly name: string; readonly stacks: readonly RenderedStack[] } | undefined;
}

export function emptyComposeState(): ComposeTickState {
  return { ...emptyState(), stacks: [], previous: undefined };
}
