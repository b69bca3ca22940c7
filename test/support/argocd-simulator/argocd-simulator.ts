// Argo CD simulator: a test controller that reconciles Applications over the test API server as Argo CD's
// application controller does (not Argo CD; see docs/test-cluster.md for what is and is not modelled).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  appProjectSchema,
  applicationSchema,
  canContinueOperation,
  canSync,
} from '../../../scripts/lib/argocd/index.ts';
import type { AppProject, Application, OperationState, WindowTarget } from '../../../scripts/lib/argocd/index.ts';
import type { Clock } from '../../../scripts/lib/ports/clock.ts';
import { describeZodIssues } from '../../../scripts/lib/errors/index.ts';
import { kubeFromConfig } from '../../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import type { JsonPatchOperation, KubeObject } from '../../../scripts/lib/ports/kube-kinds.ts';
import { isConflict } from '../../../scripts/lib/ports/kube-error.ts';
import { compare } from './app-comparison.ts';
import type { Comparison, ResourceStatus } from './app-comparison.ts';
import { apiMessage, apiStatus, genericClient } from './generic-client.ts';
import type { GenericClient } from './generic-client.ts';
import { checkout, resolveRevision } from './git-source.ts';
import { KubectlMissingError, renderSource } from './kustomize-build.ts';
import type { Manifest } from './manifest.ts';
import { resourceProblem, sourceProblem } from './project-policy.ts';
import { isHook, runWaves } from './sync-waves.ts';
import type { HookRunner, WaveProgress } from './sync-waves.ts';
import { unsupportedRule } from './ignore-differences.ts';
import { reconcileWorkloads } from './workload-controller.ts';
import { sameJson } from './same-json.ts';
import type { WorkloadOptions } from './workload-controller.ts';

export interface ArgoCdSimulatorOptions {
  readonly kubeConfig: KubeConfig;
  readonly clock: Clock;
  /** Where Applications and AppProjects live; default `argocd`. */
  readonly namespace?: string;
  /** Maps an Application's `repoURL` to a local Git repository; `file://` URLs and absolute paths map to themselves. */
  readonly repositories?: Readonly<Record<string, string>> | ((repoURL: string) => string | undefined);
  /** Simulate the Deployment/StatefulSet controllers (default true). */
  readonly workloads?: boolean | WorkloadOptions;
  readonly log?: (line: string) => void;
  /** Extra ticks a sync operation stays Running before it applies (default 0), to observe operations in flight. */
  readonly operationTicks?: number;
  /** Runs sync hook Jobs (the test's stand-in for their pods); without it the workload controller completes them. */
  readonly runHook?: HookRunner;
}

export interface SimulatorEvent {
  readonly at: string;
  readonly application: string;
  readonly message: string;
}

/** A manual sync refused as Argo CD's API server refuses it. */
export class SyncRefusedError extends Error {}

class InvalidApplication extends Error {}

interface Context {
  readonly app: Application;
  readonly raw: KubeObject;
  readonly project?: AppProject;
  readonly problem?: { type: 'InvalidSpecError' | 'ComparisonError'; message: string };
  readonly revision?: string;
  readonly desired?: Manifest[];
  readonly repo?: string;
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const completed = (s: OperationState | undefined) =>
  s !== undefined && s.phase !== 'Running' && s.phase !== 'Terminating';

export class ArgoCdSimulator {
  readonly events: SimulatorEvent[] = [];
  readonly #kube: Kube;
  readonly #client: GenericClient;
  readonly #options: ArgoCdSimulatorOptions;
  readonly #ns: string;
  readonly #renders = new Map<string, Manifest[]>();
  #writes = 0;
  #timer: NodeJS.Timeout | undefined;
  #workDir: Promise<string> | undefined;
  readonly #inFlight = new Map<string, number>();
  readonly #waves = new Map<string, WaveProgress>();
  readonly #lastEvent = new Map<string, string>();
  #running: Promise<unknown> | undefined;

  constructor(options: ArgoCdSimulatorOptions) {
    this.#options = options;
    this.#kube = kubeFromConfig(options.kubeConfig);
    this.#client = genericClient(options.kubeConfig);
    this.#ns = options.namespace ?? 'argocd';
  }

  /** One reconcile of every Application, then of the workloads; returns the number of writes it made. */
  async tick(): Promise<number> {
    const before = this.#writes;
    const apps = await this.#kube.list('Application', this.#ns);
    const namespaces = new Set<string>();
    for (const raw of apps) {
      const dst = (raw['spec'] as { destination?: { namespace?: string } } | undefined)?.destination?.namespace;
      if (dst) namespaces.add(dst);
      await this.#reconcile(raw);
    }
    if (this.#options.workloads !== false) {
      this.#writes += await reconcileWorkloads(
        this.#kube,
        namespaces,
        this.#options.clock.now(),
        typeof this.#options.workloads === 'object' ? this.#options.workloads : {},
      );
    }
    return this.#writes - before;
  }

  /** Ticks until a tick writes nothing (or `maxTicks`); returns the ticks run. */
  async settle(maxTicks = 20): Promise<number> {
    for (let i = 1; i <= maxTicks; i++) if ((await this.tick()) === 0) return i;
    throw new Error(`Argo CD simulator did not settle within ${maxTicks} ticks`);
  }

  /** Runs `tick()` every `intervalMs` until `stop()`; a failing tick is logged and retried. */
  start(intervalMs = 200): void {
    const loop = () => {
      this.#running = this.tick()
        .catch((error: unknown) => this.#event('(controller)', `reconcile failed: ${(error as Error).message}`))
        .finally(() => {
          if (this.#running !== undefined) this.#timer = setTimeout(loop, intervalMs);
        });
    };
    this.#timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    const running = this.#running;
    this.#running = undefined;
    clearTimeout(this.#timer);
    await running;
  }

  /** Stops the loop and removes the simulator's checkouts. */
  async close(): Promise<void> {
    await this.stop();
    if (this.#workDir) await rm(await this.#workDir, { recursive: true, force: true });
    this.#workDir = undefined;
  }

  /** `argocd app sync`: refused while a sync window blocks manual syncs or another operation runs. */
  async requestSync(
    name: string,
    options: { revision?: string; prune?: boolean; username?: string } = {},
  ): Promise<void> {
    const raw = await this.#kube.get('Application', this.#ns, name);
    if (!raw) throw new SyncRefusedError(`Cannot sync application "${name}": not found`);
    const ctx = await this.#context(raw);
    if (raw['operation'] !== undefined || ctx.app.status?.operationState?.phase === 'Running') {
      throw new SyncRefusedError(`Cannot sync application "${name}": another operation is already in progress`);
    }
    if (!canSync(ctx.project?.spec.syncWindows, this.#target(ctx.app), this.#options.clock.now(), { manual: true })) {
      throw new SyncRefusedError(`Cannot sync application "${name}": blocked by sync window`);
    }
    const sync = {
      ...(options.revision ? { revision: options.revision } : {}),
      ...(options.prune ? { prune: true } : {}),
    };
    await this.#kube.mergePatch('Application', this.#ns, name, {
      operation: { sync, initiatedBy: { username: options.username ?? 'admin' } },
    });
  }

  /** `argocd app terminate-op`. */
  async terminateOperation(name: string): Promise<void> {
    await this.#kube.mergePatch('Application', this.#ns, name, {
      status: { operationState: { phase: 'Terminating' } },
    });
  }

  #event(application: string, message: string): void {
    // A controller in a steady state repeats itself every tick; keep one line per change.
    if (this.#lastEvent.get(application) === message) return;
    this.#lastEvent.set(application, message);
    this.events.push({ at: iso(this.#options.clock.now()), application, message });
    this.#options.log?.(`argocd-simulator: ${application}: ${message}`);
  }

  #target(app: Application): WindowTarget {
    return { name: app.metadata.name, destination: app.spec.destination };
  }

  #repoPath(url: string): string | undefined {
    const map = this.#options.repositories;
    const mapped = typeof map === 'function' ? map(url) : map?.[url];
    if (mapped !== undefined) return mapped;
    if (url.startsWith('file://')) return fileURLToPath(url);
    return isAbsolute(url) ? url : undefined;
  }

  // Checkouts and override copies live in one temp folder per simulator, removed by close().
  #scratch(): Promise<string> {
    this.#workDir ??= mkdtemp(join(tmpdir(), 'argocd-simulator-'));
    return this.#workDir;
  }

  async #render(repo: string, revision: string, app: Application): Promise<Manifest[]> {
    const source = app.spec.source;
    const key = JSON.stringify([repo, revision, source?.path, source?.kustomize]);
    let out = this.#renders.get(key);
    if (!out) {
      const root = await checkout(repo, revision, join(await this.#scratch(), 'checkouts', encodeURIComponent(repo)));
      out = await renderSource(root, source?.path ?? '', source?.kustomize ?? {}, () => this.#scratch());
      this.#renders.set(key, out);
    }
    const ns = app.spec.destination.namespace;
    return structuredClone(out).map((m) => ({
      ...m,
      metadata: { ...m.metadata, namespace: m.metadata.namespace ?? ns },
    }));
  }

  async #context(raw: KubeObject, revisionOverride?: string): Promise<Context> {
    const parsed = applicationSchema.safeParse(raw);
    if (!parsed.success)
      throw new InvalidApplication(describeZodIssues(`Application ${raw.metadata.name}`, raw, parsed.error).join('; '));
    const app = parsed.data;
    const fail = (
      type: 'InvalidSpecError' | 'ComparisonError',
      message: string,
      extra: Partial<Context> = {},
    ): Context => ({ app, raw, ...extra, problem: { type, message } });
    const projectRaw = await this.#kube.get('AppProject', this.#ns, app.spec.project);
    if (!projectRaw)
      return fail('InvalidSpecError', `Application referencing project ${app.spec.project} which does not exist`);
    const projectParsed = appProjectSchema.safeParse(projectRaw);
    if (!projectParsed.success)
      return fail(
        'InvalidSpecError',
        `AppProject ${app.spec.project} is invalid: ${projectParsed.error.issues[0]?.message ?? ''}`,
      );
    const project = projectParsed.data;
    const source = app.spec.source;
    if (!source)
      return fail('InvalidSpecError', 'spec.source is required (multiple sources are not simulated)', { project });
    const policy = sourceProblem(project, app) ?? unsupportedRule(app);
    if (policy) return fail('InvalidSpecError', policy, { project });
    const repo = this.#repoPath(source.repoURL);
    if (!repo) return fail('ComparisonError', `repository not found: ${source.repoURL}`, { project });
    try {
      const revision = await resolveRevision(repo, revisionOverride ?? source.targetRevision);
      const desired = await this.#render(repo, revision, app);
      const forbidden = desired.map((m) => resourceProblem(project, m)).find((p) => p !== undefined);
      if (forbidden) return fail('ComparisonError', forbidden, { project, revision, repo });
      return { app, raw, project, revision, desired, repo };
    } catch (error) {
      if (error instanceof KubectlMissingError) throw error;
      return fail('ComparisonError', `Failed to load target state: ${(error as Error).message}`, { project, repo });
    }
  }

  async #reconcile(raw: KubeObject): Promise<void> {
    const now = this.#options.clock.now();
    let ctx: Context;
    try {
      ctx = await this.#context(raw);
    } catch (error) {
      if (error instanceof InvalidApplication) return this.#reportInvalid(raw, error.message, now);
      throw error;
    }
    const { app } = ctx;
    const name = app.metadata.name;
    const windows = ctx.project?.spec.syncWindows;
    const previous = ((raw['status'] as { resources?: ResourceStatus[] } | undefined)?.resources ??
      []) as ResourceStatus[];
    let op = app.status?.operationState;
    let removeOperation = false;
    if (app.operation !== undefined && (op === undefined || completed(op))) {
      op = { operation: app.operation, phase: 'Running', message: 'Sync in progress', startedAt: iso(now) };
    }
    if (op?.phase === 'Terminating') {
      op = { ...op, phase: 'Failed', message: 'Operation terminated', finishedAt: iso(now) };
      removeOperation = true;
      this.#event(name, 'Operation terminated');
    } else if (op?.phase === 'Running') {
      ({ op, removeOperation } = await this.#runOperation(ctx, op, previous, now));
    }
    let comparison = ctx.problem
      ? undefined
      : await compare(
          this.#client,
          app,
          (ctx.desired ?? []).filter((m) => !isHook(m)),
          previous,
        );
    const automated = app.spec.syncPolicy?.automated;
    if (
      comparison?.sync === 'OutOfSync' &&
      automated &&
      automated.enabled !== false &&
      (op === undefined || completed(op))
    ) {
      const attempted =
        op?.syncResult?.revision === ctx.revision && sameJson(op?.syncResult?.['source'], app.spec.source);
      if (attempted && (automated.selfHeal !== true || op?.phase !== 'Succeeded')) {
        this.#event(
          name,
          op?.phase === 'Succeeded'
            ? `Skipping auto-sync: most recent sync already to ${ctx.revision ?? ''}`
            : `Skipping auto-sync: failed previous sync attempt to ${ctx.revision ?? ''}`,
        );
      } else if (!canSync(windows, this.#target(app), now, { manual: false })) {
        this.#event(name, 'Sync prevented by sync window');
      } else {
        this.#event(
          name,
          attempted
            ? 'Self-healing: live state differs from the last sync'
            : `Initiated automated sync to '${ctx.revision ?? ''}'`,
        );
        const started: OperationState = {
          operation: {
            sync: { revision: ctx.revision, ...(automated.prune ? { prune: true } : {}) },
            initiatedBy: { automated: true },
          },
          phase: 'Running',
          message: 'Sync in progress',
          startedAt: iso(now),
        };
        ({ op, removeOperation } = await this.#runOperation(ctx, started, previous, now));
        removeOperation = removeOperation && app.operation !== undefined;
        comparison = await compare(
          this.#client,
          app,
          (ctx.desired ?? []).filter((m) => !isHook(m)),
          previous,
        );
      }
    }
    await this.#writeStatus(ctx, comparison, op, removeOperation, now);
  }

  // An Application Argo CD cannot even read: only a condition, nothing is compared or synced.
  async #reportInvalid(raw: KubeObject, message: string, now: Date): Promise<void> {
    const old = raw['status'] as { conditions?: { message: string }[] } | undefined;
    if (old?.conditions?.[0]?.message === message) return;
    this.#event(raw.metadata.name, message);
    const status = {
      sync: { status: 'Unknown' },
      health: { status: 'Unknown' },
      conditions: [{ type: 'InvalidSpecError', message, lastTransitionTime: iso(now) }],
      reconciledAt: iso(now),
    };
    await this.#patchStatus(raw, [{ op: 'add', path: '/status', value: status }]);
  }

  async #patchStatus(raw: KubeObject, ops: JsonPatchOperation[]): Promise<void> {
    try {
      await this.#kube.jsonPatch('Application', this.#ns, raw.metadata.name, [
        { op: 'test', path: '/metadata/resourceVersion', value: raw.metadata.resourceVersion },
        ...ops,
      ]);
      this.#writes++;
    } catch (error) {
      if (!isConflict(error)) throw error; // changed meanwhile (a new operation, a terminate): next tick re-reads
    }
  }

  async #runOperation(
    ctx: Context,
    op: OperationState,
    previous: ResourceStatus[],
    now: Date,
  ): Promise<{ op: OperationState; removeOperation: boolean }> {
    const name = ctx.app.metadata.name;
    const manual = op.operation.initiatedBy?.automated !== true;
    if (
      !canContinueOperation(ctx.project?.spec.syncWindows, this.#target(ctx.app), now, {
        manual,
        startedAt: new Date(op.startedAt),
      })
    ) {
      if (op.message !== 'Sync operation blocked by sync window')
        this.#event(name, 'Sync operation blocked by sync window');
      return { op: { ...op, message: 'Sync operation blocked by sync window' }, removeOperation: false };
    }
    const flight = `${name}@${op.startedAt}`;
    const remaining = this.#inFlight.get(flight) ?? this.#options.operationTicks ?? 0;
    if (remaining > 0) {
      this.#inFlight.set(flight, remaining - 1);
      return { op: { ...op, message: 'Sync in progress' }, removeOperation: false };
    }
    this.#inFlight.delete(flight);
    const wanted = op.operation.sync?.revision;
    const target = wanted !== undefined && wanted !== ctx.revision ? await this.#context(ctx.raw, wanted) : ctx;
    const finish = (phase: 'Succeeded' | 'Failed', message: string, extra: Partial<OperationState> = {}) => ({
      op: { ...op, ...extra, phase, message, finishedAt: iso(now) },
      removeOperation: true,
    });
    if (target.problem || !target.desired || !target.revision)
      return finish('Failed', target.problem?.message ?? 'nothing to sync');
    try {
      const prune = op.operation.sync?.prune === true ? previous : [];
      const progress = this.#waves.get(flight) ?? { next: 0, applied: false };
      this.#waves.set(flight, progress);
      const before = `${progress.next}/${progress.applied}`;
      const outcome = await runWaves(this.#client, this.#kube, ctx.app, target.desired, prune, progress, {
        runHook: this.#options.runHook,
        log: (line) => this.#event(name, line),
      });
      if (`${progress.next}/${progress.applied}` !== before) this.#writes++;
      if (outcome.state === 'running') return { op: { ...op, message: outcome.message }, removeOperation: false };
      this.#waves.delete(flight);
      // Argo CD records the attempted revision and source before syncing, so a failed attempt is not retried automatically.
      const attempt = { syncResult: { revision: target.revision, source: ctx.app.spec.source, resources: [] } };
      if (outcome.state === 'failed') {
        this.#event(name, `Sync operation failed: ${outcome.message}`);
        return finish(
          'Failed',
          `one or more synchronization tasks completed unsuccessfully, reason: ${outcome.message}`,
          attempt,
        );
      }
      const resources = outcome.resources;
      this.#writes += resources.filter((r) => !r.message.endsWith('unchanged')).length;
      this.#event(name, `Sync operation to ${target.revision} succeeded`);
      return finish('Succeeded', 'successfully synced (all tasks run)', {
        syncResult: { revision: target.revision, source: ctx.app.spec.source, resources },
      });
    } catch (error) {
      if (isConflict(error) || apiStatus(error) === 409) {
        return { op: { ...op, message: `retrying: ${apiMessage(error)}` }, removeOperation: false };
      }
      this.#event(name, `Sync operation failed: ${apiMessage(error)}`);
      return finish('Failed', `one or more objects failed to apply, reason: ${apiMessage(error)}`);
    }
  }

  async #writeStatus(
    ctx: Context,
    comparison: Comparison | undefined,
    op: OperationState | undefined,
    removeOperation: boolean,
    now: Date,
  ): Promise<void> {
    const { app, raw } = ctx;
    const old = (raw['status'] ?? {}) as Record<string, unknown>;
    const history = ((old['history'] as { id: number }[] | undefined) ?? []).slice();
    // Argo CD records each sync that succeeded in this reconcile in status.history (revisionHistoryLimit 10).
    if (op?.phase === 'Succeeded' && op.syncResult && op !== app.status?.operationState) {
      const { revision, source } = op.syncResult;
      history.push({
        id: (history.at(-1)?.id ?? -1) + 1,
        revision,
        source,
        deployStartedAt: op.startedAt,
        deployedAt: op.finishedAt,
        initiatedBy: op.operation.initiatedBy,
      } as { id: number });
    }
    const status: Record<string, unknown> = {
      sync: comparison
        ? {
            status: comparison.sync,
            revision: ctx.revision,
            comparedTo: { source: app.spec.source, destination: app.spec.destination },
          }
        : { status: 'Unknown', ...(ctx.revision ? { revision: ctx.revision } : {}) },
      health: comparison ? comparison.health : { status: 'Unknown' },
      resources: comparison?.resources ?? (old['resources'] as unknown) ?? [],
      summary: { images: comparison?.images ?? [] },
      ...(history.length > 0 ? { history: history.slice(-10) } : {}),
      ...(op ? { operationState: op } : {}),
      ...(ctx.problem
        ? { conditions: [{ type: ctx.problem.type, message: ctx.problem.message, lastTransitionTime: iso(now) }] }
        : {}),
    };
    const messages = (st: Record<string, unknown>) =>
      (st['conditions'] as { message: string }[] | undefined)?.map((c) => c.message);
    const unchanged =
      sameJson({ ...old, reconciledAt: undefined, conditions: undefined }, { ...status, conditions: undefined }) &&
      sameJson(messages(old), messages(status));
    if (unchanged && !removeOperation) return;
    status['reconciledAt'] = iso(now);
    await this.#patchStatus(raw, [
      { op: 'add', path: '/status', value: status },
      ...(removeOperation && raw['operation'] !== undefined ? [{ op: 'remove' as const, path: '/operation' }] : []),
    ]);
  }
}
