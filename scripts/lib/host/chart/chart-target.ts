import type { TickState } from '../tick-context.ts';

/** What a chart host's prepare and values steps learn for the upgrade step. */
export interface ChartTarget {
  /** The chart argument: the verified package (release) or the source folder in the commit's worktree. */
  readonly chart: string;
  readonly name: string;
  /** The chart's version: the release's (`1.2.3`), or the source tree's for a commit. */
  readonly version: string;
  /** Where the target's profiles are: `<worktree>/deploy/chart/<name>/profiles`. */
  readonly profilesDir: string;
  readonly profiles: readonly string[];
  readonly imageVariables: readonly string[];
  /** In Helm's order: profiles, then /etc/hephaestus/chart.yaml, then the pins. Set by the values step. */
  valuesFiles?: readonly string[];
}

/** What a chart host's tick learns besides the shared state. */
export interface ChartTickState extends TickState {
  /** The verified chart and values files (set by prepare and values). */
  chart?: ChartTarget;
}
