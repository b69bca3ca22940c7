// Replacement through the Telepresence 2.x CLI: `connect --namespace`, `replace <workload> --port local:remote`,
// `leave <workload>`, and, once no local runtime runs, the namespace-scoped `uninstall --all-agents`, then `quit`.
import { z } from 'zod';
import { LeaseError } from '../lease/lease-error.ts';
import { exec as realExec } from '../ports/exec.ts';
import type { Exec } from '../ports/exec.ts';
import type { Replacement, WorkloadReplacement } from './workload-replacement.ts';

const TIMEOUT_MS = 120_000;

const statusSchema = z.looseObject({
  user_daemon: z.looseObject({ running: z.boolean(), status: z.string(), namespace: z.string().optional() }),
});
const listSchema = z.array(
  z.looseObject({
    name: z.string(),
    namespace: z.string(),
    workload_resource_type: z.string().optional(),
    agent_version: z.string().optional(),
    intercept_infos: z
      .array(
        z.looseObject({
          spec: z.looseObject({
            name: z.string(),
            namespace: z.string(),
            port_identifier: z.string().optional(),
            target_port: z.number().optional(),
          }),
          disposition: z.string(),
        }),
      )
      .optional(),
  }),
);

export type TelepresenceList = z.infer<typeof listSchema>;

function parse<T>(schema: z.ZodType<T>, text: string, what: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new LeaseError(
      'runtime-failed',
      `Cannot read "telepresence ${what}": its output is not JSON: ${JSON.stringify(text.slice(0, 200))}`,
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new LeaseError(
      'runtime-failed',
      `Cannot read "telepresence ${what}": ${parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

export interface TelepresenceOptions {
  /** The CLI: `PHAROS_TELEPRESENCE` or `telepresence` on PATH. */
  readonly binary?: string;
  readonly exec?: Exec;
  readonly log?: (line: string) => void;
}

export const telepresenceBinary = (): string => process.env['PHAROS_TELEPRESENCE'] ?? 'telepresence';

/** True when the CLI answers `telepresence version`. */
export async function telepresenceAvailable(binary = telepresenceBinary(), run: Exec = realExec): Promise<boolean> {
  const result = await run(binary, ['version'], { timeoutMs: 20_000 }).catch(() => undefined);
  return result?.code === 0;
}

export function telepresenceReplacement(options: TelepresenceOptions = {}): WorkloadReplacement {
  const binary = options.binary ?? telepresenceBinary();
  const run = options.exec ?? realExec;
  const cli = async (args: string[]): Promise<string> => {
    const result = await run(binary, args, { timeoutMs: TIMEOUT_MS });
    if (result.code !== 0)
      throw new LeaseError(
        'runtime-failed',
        `Cannot run "telepresence ${args.join(' ')}": exit ${result.code}: ${result.stderr.trim().split('\n').slice(-2).join(' / ')}`,
        { details: { args } },
      );
    return result.stdout.toString('utf8');
  };
  const status = async () => parse(statusSchema, await cli(['status', '--output', 'json']), 'status --output json');
  const list = async () => parse(listSchema, await cli(['list', '--output', 'json']), 'list --output json');
  const replacedIn = (workloads: TelepresenceList, namespace: string) =>
    workloads.filter(
      (w) => w.namespace === namespace && (w.intercept_infos ?? []).some((i) => i.disposition === 'ACTIVE'),
    );

  /** One connection, one namespace (Telepresence 2.x): switching namespaces would end the other one's replacements. */
  async function connect(namespace: string): Promise<void> {
    const now = await status();
    if (now.user_daemon.status === 'Connected' && now.user_daemon.namespace === namespace) return;
    if (now.user_daemon.status === 'Connected') {
      const busy = replacedIn(await list(), now.user_daemon.namespace ?? '');
      if (busy.length > 0)
        throw new LeaseError(
          'runtime-failed',
          `Cannot connect Telepresence to namespace "${namespace}": it replaces ${busy.map((w) => `"${w.namespace}/${w.name}"`).join(', ')} in namespace "${now.user_daemon.namespace}"`,
        );
      await cli(['quit']);
    }
    await cli(['connect', '--namespace', namespace]);
  }

  return {
    name: 'telepresence',
    async replace(workload, lease, route) {
      await connect(workload.namespace);
      const current = (await list()).find((w) => w.name === workload.name && w.namespace === workload.namespace);
      const active = current?.intercept_infos?.find((i) => i.disposition === 'ACTIVE');
      const port = route === undefined ? undefined : `${route.localPort}:${route.remotePort}`;
      if (
        active !== undefined &&
        (port === undefined || active.spec.port_identifier === String(route?.remotePort)) &&
        active.spec.name === workload.name
      ) {
        // A restarted runtime keeps its loopback port, so an existing replacement already routes to it.
        if (port === undefined || active.spec.target_port === route?.localPort)
          return { workload, lease, via: 'telepresence', ...(port === undefined ? {} : { port }) };
        await cli(['leave', workload.name]);
      }
      const args = ['replace', workload.name, '--address', '127.0.0.1'];
      if (port !== undefined) args.push('--port', port);
      if (route?.container !== undefined) args.push('--container', route.container);
      await cli(args);
      return { workload, lease, via: 'telepresence', ...(port === undefined ? {} : { port }) };
    },
    async restore(replacement) {
      const now = await status();
      if (now.user_daemon.status !== 'Connected') return false;
      const workloads = await list();
      const replaced = replacedIn(workloads, replacement.workload.namespace).some(
        (w) => w.name === replacement.workload.name,
      );
      if (!replaced || now.user_daemon.namespace !== replacement.workload.namespace) return false;
      await cli(['leave', replacement.workload.name]);
      return true;
    },
    async find(namespaces, lease) {
      const now = await status();
      if (now.user_daemon.status !== 'Connected' || !namespaces.includes(now.user_daemon.namespace ?? '')) return [];
      return replacedIn(await list(), now.user_daemon.namespace!).map(
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
      if (now.user_daemon.status !== 'Connected') return {};
      const out: Record<string, string[]> = {};
      for (const w of await list())
        if (namespaces.includes(w.namespace) && w.agent_version !== undefined) (out[w.namespace] ??= []).push(w.name);
      return out;
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
