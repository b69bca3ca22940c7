import type { Clock } from '../ports/clock.ts';
import type { Compose } from '../ports/compose.ts';
import type { Docker } from '../ports/docker.ts';
import type { Exec } from '../ports/exec.ts';
import type { Fs } from '../ports/fs.ts';
import type { Git } from '../ports/git.ts';
import type { TrustPolicy } from '../signing/trust-policy.ts';
import type { AppliedRecord } from './applied-record.ts';
import type { HostConfig } from './host-config.ts';
import type { TrustRole } from './role-trust.ts';
import type { PlanResult } from './plan-tick.ts';
import type { Step as NamedStep } from '../steps/step.ts';

export interface TickPorts {
  readonly exec: Exec;
  readonly git: (dir: string) => Git;
  readonly compose: Compose;
  readonly docker: Docker;
  readonly fs: Fs;
  readonly clock: Clock;
}

/** One journal line: the step, its outcome and a few fields. */
export type TickLog = (step: string, fields: Readonly<Record<string, unknown>>) => void;

export interface TickContext {
  readonly config: HostConfig;
  readonly ports: TickPorts;
  readonly log: TickLog;
  /** Trust for channels ('promote') or release locks ('release'), loaded on first use: a noop tick never reads the release keys. */
  readonly trust: (role: TrustRole) => Promise<TrustPolicy>;
  /** Called after each step is journaled (crash drills). */
  readonly afterStep?: (step: string) => void;
}

export interface Target {
  /** Folder and lock name: the release tag or the commit. */
  readonly name: string;
  readonly release: string | undefined;
  readonly commit: string;
}

/** What the steps learn, in order; each step reads what earlier ones set. An applier adds its own fields (compose/, chart/). */
export interface TickState {
  applied: AppliedRecord | undefined;
  plan: PlanResult | undefined;
  target: Target | undefined;
  worktree: string | undefined;
  images: Readonly<Record<string, string>> | undefined;
  lockEnv: Readonly<Record<string, string>> | undefined;
  /** Set by the step that ends the tick. */
  outcome: TickOutcome | undefined;
}

export interface TickOutcome {
  readonly exit: 0 | 1 | 2 | 3;
  readonly result: 'applied' | 'noop' | 'refused' | 'stale' | 'failed';
  readonly message: string;
}

/** A tick step always says whether the tick goes on: the runner's result (steps/) with `next` required. */
export type StepResult =
  | { readonly next: true; readonly fields?: Readonly<Record<string, unknown>> }
  | { readonly next: false; readonly outcome: TickOutcome; readonly fields?: Readonly<Record<string, unknown>> };

export type Step<S extends TickState = TickState> = (ctx: TickContext, state: S) => Promise<StepResult>;

/** A tick step as the tick lists it: its journal name and its function. */
export type TickStep<S extends TickState = TickState> = NamedStep<TickContext, S, TickOutcome>;

export function emptyState(): TickState {
  return {
    applied: undefined,
    plan: undefined,
    target: undefined,
    worktree: undefined,
    images: undefined,
    lockEnv: undefined,
    outcome: undefined,
  };
}
