// Starting one image's local runtime and routing its workload to it: shared by `start` and the watcher's restarts.
import { join } from 'node:path';
import { LeaseError } from '../ownership/lease-error.ts';
import type { RuntimeHandle, RuntimeRequest } from './runtime/local-runtime.ts';
import { describeHandle, runtimeOf } from './runtime/local-runtime.ts';
import type { TakeoverTarget } from './resolve-workloads.ts';
import { journal } from './lease-journal.ts';
import { LEASE_LABEL } from './runtime/docker-runtime.ts';
import { describeHolder, leaseId } from '../ownership/holder.ts';
import type { LeaseState, TakeoverContext } from './takeover-context.ts';
import type { Replacement, WorkloadRef } from '../ownership/workload-replacement.ts';

export const logFileOf = (ctx: TakeoverContext, image: string): string => join(ctx.paths.dir, `${image}.log`);

export function runtimeRequest(
  ctx: TakeoverContext,
  target: TakeoverTarget,
  hostPort?: number,
  network?: string,
): RuntimeRequest {
  const port = target.image.takeover?.port;
  return {
    image: target.image.name,
    command: target.command,
    cwd: ctx.checkout,
    env: target.env,
    logFile: logFileOf(ctx, target.image.name),
    entry: target.image,
    ...(port === undefined ? {} : { port }),
    ...(hostPort === undefined ? {} : { hostPort }),
    aliases: target.aliases,
    network: network ?? ctx.network,
    labels: { 'pharos.dev/takeover-target': ctx.profile.name, 'pharos.dev/takeover-checkout': ctx.checkout },
  };
}

/** The container's own labels: the lease, its holder and the workloads it stands in for. */
export function leaseLabels(state: LeaseState, target: TakeoverTarget): Record<string, string> {
  return {
    [LEASE_LABEL]: leaseId(state.record),
    'pharos.dev/takeover-holder': describeHolder(state.record),
    'pharos.dev/takeover-workloads': target.workloads.map((w) => `${w.kind}/${w.namespace}/${w.name}`).join(','),
  };
}

/** Journals the runtime before it starts (`pending`); the complete line follows once it runs (journalRuntime). */
function checkpointsFor(ctx: TakeoverContext, state: LeaseState): RuntimeRequest['checkpoint'] {
  return async (point, handle) => {
    if (point === 'named') {
      await journal(ctx, state, 'runtime', {
        image: handle.image,
        runtime: runtimeOf(handle),
        argv: handle.command,
        ...(handle.container === undefined ? {} : { container: handle.container }),
        ...(handle.name === undefined ? {} : { name: handle.name }),
        pending: true,
      });
      await ctx.afterStep?.('runtime:named');
    } else await ctx.afterStep?.('runtime:started');
  };
}

export async function startRuntime(
  ctx: TakeoverContext,
  target: TakeoverTarget,
  hostPort?: number,
  state?: LeaseState,
): Promise<RuntimeHandle> {
  const name = target.image.takeover?.runtime ?? '';
  const runtime = ctx.runtimes[name];
  if (runtime === undefined)
    throw new LeaseError(
      'not-a-candidate',
      `Cannot run image "${target.image.name}": runtime "${name || '-'}" is not available`,
    );
  if (name === 'docker')
    ctx.log(
      `building ${target.image.name} from the working tree (${target.image.dockerfile}${target.image.target === undefined ? '' : `, target ${target.image.target}`})`,
    );
  const request = runtimeRequest(ctx, target, hostPort, state?.clusterNetwork);
  return runtime.start(
    state === undefined
      ? request
      : { ...request, containerLabels: leaseLabels(state, target), checkpoint: checkpointsFor(ctx, state) },
  );
}

/**
 * Docker runtimes under Telepresence share the network of its containerized daemon (`connect --docker`): cluster DNS
 * and routes, and the daemon reaches their port on its own loopback. Journaled before connecting, so a hand-back after
 * a crash quits that daemon. A native runtime beside them keeps the host daemon: it could not reach a container's loopback.
 */
export async function joinClusterNetwork(
  ctx: TakeoverContext,
  state: LeaseState,
  targets: readonly TakeoverTarget[],
): Promise<string | undefined> {
  const runtimes = new Set(targets.map((t) => t.image.takeover?.runtime));
  const namespace = targets.flatMap((t) => t.workloads)[0]?.namespace;
  if (ctx.dockerNetwork === undefined || !runtimes.has('docker') || namespace === undefined) return undefined;
  if (runtimes.size > 1) {
    ctx.log('Docker and native runtimes together: Telepresence runs on the host, so the containers get no cluster DNS');
    return undefined;
  }
  await journal(ctx, state, 'connect', { namespace, docker: true });
  const network = await ctx.dockerNetwork(namespace);
  ctx.log(`step=connect Telepresence in Docker mode (namespace ${namespace}): the Docker runtimes share ${network}`);
  await ctx.afterStep?.('connect');
  return network;
}

export async function journalRuntime(
  ctx: TakeoverContext,
  state: LeaseState,
  handle: RuntimeHandle,
  step = 'runtime',
): Promise<void> {
  await journal(ctx, state, 'runtime', {
    image: handle.image,
    runtime: runtimeOf(handle),
    argv: handle.command,
    ...(handle.pid === undefined ? {} : { pid: handle.pid }),
    ...(handle.container === undefined ? {} : { container: handle.container }),
    ...(handle.name === undefined ? {} : { name: handle.name }),
    ...(handle.hostPort === undefined ? {} : { hostPort: handle.hostPort }),
    ...(handle.network === undefined ? {} : { network: handle.network }),
    ...(step === 'runtime' ? {} : { restart: true }),
  });
  const where =
    handle.hostPort === undefined
      ? ''
      : handle.network === undefined
        ? ` on 127.0.0.1:${handle.hostPort}`
        : ` on port ${handle.hostPort} of ${handle.network}`;
  ctx.log(`step=${step} image=${handle.image} ${describeHandle(handle)}${where} log=${logFileOf(ctx, handle.image)}`);
}

/** Telepresence routes the workload's port to the runtime; without a port to route, or without Telepresence, scale to zero. */
export async function replaceWorkload(
  ctx: TakeoverContext,
  target: TakeoverTarget,
  workload: WorkloadRef,
  lease: string,
  hostPort: number | undefined,
): Promise<Replacement> {
  const port = target.image.takeover?.port;
  if (ctx.replacement.name === 'telepresence') {
    const route =
      port === undefined || hostPort === undefined
        ? undefined
        : {
            localPort: hostPort,
            remotePort: port,
            ...(target.container === undefined ? {} : { container: target.container }),
          };
    return ctx.replacement.replace(workload, lease, route);
  }
  return ctx.replacement.replace(workload, lease);
}
