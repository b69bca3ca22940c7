// Replacement through the Telepresence 2.31 CLI (docs/takeover.md "Telepresence"): `connect --namespace` (with
// `--docker` when the Docker runtime shares the daemon's network), `replace <workload> --port local:remote --container
// <c>` (the attachment `<workload>/<c>`), `detach <attachment>`, and, once no local runtime runs, the namespace-scoped
// `uninstall --all-agents`, then `quit` (which also ends a containerized daemon).
import { LeaseError } from '../../ownership/lease-error.ts';
import { exec as realExec } from '../../ports/exec.ts';
import type { Exec } from '../../ports/exec.ts';
import {
  activeAttachments,
  attachmentName,
  clientVersion,
  daemonContainer,
  daemonOf,
  listSchema,
  parseTelepresence,
  statusSchema,
} from './telepresence-output.ts';
import type { TelepresenceWorkload } from './telepresence-output.ts';
import type { Replacement, WorkloadReplacement } from '../../ownership/workload-replacement.ts';

const TIMEOUT_MS = 120_000;
/** `detach` came with 2.30 (2.29 and older only know `leave`). */
export const TELEPRESENCE_MINIMUM = [2, 30, 0] as const;

export interface TelepresenceOptions {
  /** The CLI: `PHAROS_TELEPRESENCE` or `telepresence` on PATH. */
  readonly binary?: string;
  readonly exec?: Exec;
  readonly log?: (line: string) => void;
}

/** The Telepresence port, and what the Docker runtime needs of it: the network of the daemon `connect --docker` runs. */
export interface TelepresenceReplacement extends WorkloadReplacement {
  /** Connects in Docker mode if needed; `container:<daemon container>`, named by `status --output json`. */
  dockerNetwork(namespace: string): Promise<string>;
}

export const telepresenceBinary = (): string => process.env['PHAROS_TELEPRESENCE'] ?? 'telepresence';

/** The client's version when `telepresence version` answers, else undefined (not installed). */
export async function telepresenceVersion(
  binary = telepresenceBinary(),
  run: Exec = realExec,
): Promise<readonly [number, number, number] | 'unknown' | undefined> {
  const result = await run(binary, ['version'], { timeoutMs: 20_000 }).catch(() => undefined);
  if (result?.code !== 0) return undefined;
  return clientVersion(result.stdout.toString('utf8')) ?? 'unknown';
}

/** True for a client older than TELEPRESENCE_MINIMUM, or one whose version line cannot be read. */
export function tooOld(v: readonly [number, number, number] | 'unknown'): boolean {
  if (v === 'unknown') return true;
  const i = v.findIndex((part, k) => part !== TELEPRESENCE_MINIMUM[k]);
  return i >= 0 && v[i]! < TELEPRESENCE_MINIMUM[i]!;
}

/** Under --output json a failure is the `err` member on stdout, with nothing on stderr (pkg/client/cli/main.go). */
function formattedError(stdout: string): string | undefined {
  try {
    const err = (JSON.parse(stdout) as { err?: unknown } | null)?.err;
    return typeof err === 'string' ? err : undefined;
  } catch {
    return undefined;
  }
}

export function telepresenceReplacement(options: TelepresenceOptions = {}): TelepresenceReplacement {
  const binary = options.binary ?? telepresenceBinary();
  const run = options.exec ?? realExec;
  const cli = async (args: string[]): Promise<string> => {
    const result = await run(binary, args, { timeoutMs: TIMEOUT_MS });
    const stdout = result.stdout.toString('utf8');
    if (result.code !== 0) {
      const said = formattedError(stdout) ?? result.stderr;
      throw new LeaseError(
        'runtime-failed',
        `Cannot run "telepresence ${args.join(' ')}": exit ${result.code}: ${said.trim().split('\n').slice(-2).join(' / ')}`,
        { details: { args } },
      );
    }
    return stdout;
  };
  const status = async () =>
    daemonOf(parseTelepresence(statusSchema, await cli(['status', '--output', 'json']), 'status --output json'));
  const list = async (): Promise<TelepresenceWorkload[]> =>
    parseTelepresence(listSchema, await cli(['list', '--output', 'json']), 'list --output json').stdout ?? [];
  const replacedIn = (workloads: readonly TelepresenceWorkload[], namespace: string) =>
    workloads.filter((w) => w.namespace === namespace && activeAttachments(w).length > 0);

  /**
   * One connection, one namespace: switching namespaces (or, for `docker`, from a host daemon to a containerized one)
   * would end the other one's replacements. Without `docker` any connection to the namespace serves.
   */
  async function connect(namespace: string, docker = false): Promise<void> {
    const now = await status();
    const fits = !docker || now.in_docker === true;
    if (now.status === 'Connected' && now.namespace === namespace && fits) return;
    if (now.status === 'Connected') {
      const busy = replacedIn(await list(), now.namespace ?? '');
      if (busy.length > 0)
        throw new LeaseError(
          'runtime-failed',
          `Cannot connect Telepresence to namespace "${namespace}"${docker ? ' in Docker mode' : ''}: it replaces ${busy.map((w) => `"${w.namespace}/${w.name}"`).join(', ')} in namespace "${now.namespace}"${fits ? '' : ' from a daemon on the host'}`,
        );
      await cli(['quit']);
    }
    await cli(['connect', '--namespace', namespace, ...(docker ? ['--docker'] : [])]);
  }

  return {
    name: 'telepresence',
    async dockerNetwork(namespace) {
      await connect(namespace, true);
      const daemon = await status();
      const container = daemonContainer(daemon);
      if (container === undefined)
        throw new LeaseError(
          'runtime-failed',
          `Cannot share the network of Telepresence's daemon: "telepresence status --output json" names no daemon container (in_docker ${String(daemon.in_docker ?? false)}, container_network ${JSON.stringify(daemon.container_network ?? '')})`,
        );
      return `container:${container}`;
    },
    async replace(workload, lease, route) {
      await connect(workload.namespace);
      const name = attachmentName(workload.name, route?.container);
      const current = (await list()).find((w) => w.name === workload.name && w.namespace === workload.namespace);
      const active = current === undefined ? [] : activeAttachments(current);
      const port = route === undefined ? undefined : `${route.localPort}:${route.remotePort}`;
      const ours = active.find((a) => a.spec.name === name);
      // A restarted runtime keeps its loopback port, so an existing replacement already routes to it.
      if (
        ours !== undefined &&
        (route === undefined ||
          (ours.spec.port_identifier === String(route.remotePort) && ours.spec.target_port === route.localPort))
      )
        return { workload, lease, via: 'telepresence', ...(port === undefined ? {} : { port }) };
      // Any other attachment on the workload (another port, a container of an older start) goes first.
      for (const a of active) await cli(['detach', a.spec.name]);
      const args = ['replace', workload.name, '--address', '127.0.0.1'];
      if (port !== undefined) args.push('--port', port);
      if (route?.container !== undefined) args.push('--container', route.container);
      await cli(args);
      return { workload, lease, via: 'telepresence', ...(port === undefined ? {} : { port }) };
    },
    async restore(replacement) {
      const now = await status();
      if (now.status !== 'Connected' || now.namespace !== replacement.workload.namespace) return false;
      const current = replacedIn(await list(), replacement.workload.namespace).find(
        (w) => w.name === replacement.workload.name,
      );
      if (current === undefined) return false;
      for (const a of activeAttachments(current)) await cli(['detach', a.spec.name]);
      return true;
    },
    async find(namespaces, lease) {
      const now = await status();
      if (now.status !== 'Connected' || !namespaces.includes(now.namespace ?? '')) return [];
      return replacedIn(await list(), now.namespace ?? '').map(
        (w): Replacement => ({
          workload: {
            kind: w.workload_resource_type === 'StatefulSet' ? 'StatefulSet' : 'Deployment',
            namespace: w.namespace,
            name: w.name,
          },
          lease,
          via: 'telepresence',
        }),
      );
    },
    async agents(namespaces) {
      const now = await status();
      if (now.status !== 'Connected') return {};
      const out: Record<string, string[]> = {};
      for (const w of await list())
        if (namespaces.includes(w.namespace) && w.agent_version !== undefined) (out[w.namespace] ??= []).push(w.name);
      return out;
    },
    async clear(namespace) {
      await connect(namespace);
      const done: string[] = [];
      for (const w of replacedIn(await list(), namespace))
        for (const a of activeAttachments(w)) {
          await cli(['detach', a.spec.name]);
          done.push(`detached the Telepresence replacement ${namespace}/${a.spec.name}`);
        }
      const had = (await list())
        .filter((w) => w.namespace === namespace && w.agent_version !== undefined)
        .map((w) => w.name);
      if (had.length > 0) {
        await cli(['uninstall', '--all-agents']);
        done.push(`removed the traffic agents of namespace ${namespace}: ${had.join(', ')}`);
      }
      await cli(['quit']);
      return done;
    },
    async removeAgents(namespace) {
      await connect(namespace);
      const had = (await list())
        .filter((w) => w.namespace === namespace && w.agent_version !== undefined)
        .map((w) => w.name);
      if (had.length > 0) await cli(['uninstall', '--all-agents']);
      await cli(['quit']);
      return had;
    },
  };
}
