// What the Telepresence 2.31 CLI prints that takeover reads (docs/takeover.md "Telepresence"): `status --output json`
// (a bare object; with no user daemon every member is zero: `{"running":false,...}`; a daemon started by
// `connect --docker` is the member `daemon`, naming its container; several connections are `connections`), `list --output json`
// (`{"cmd":"list","stdout":[WorkloadInfo…]}`, an error as `"err"`), the proto key names and enum numbers of
// WorkloadInfo/InterceptInfo, and `version`. Held against the fixtures in test/support/contracts/telepresence/.
import { z } from 'zod';
import { LeaseError } from '../../ownership/lease-error.ts';

/** rpc/manager/manager.proto InterceptDispositionType: encoding/json prints the enum's number. */
export const DISPOSITION_ACTIVE = 1;

const daemonSchema = z.looseObject({
  running: z.boolean().optional(),
  /** True for the daemon `connect --docker` runs in a container. */
  in_docker: z.boolean().optional(),
  name: z.string().optional(),
  /** The daemon's container (`tp-<name>`; 2.20 printed `container:tp-<name>`), or `default bridge`. */
  container_network: z.string().optional(),
  status: z.string().optional(),
  namespace: z.string().optional(),
});
export type TelepresenceDaemon = z.infer<typeof daemonSchema>;

/** StatusInfo.toMap (pkg/client/cli/cmd/status.go): `user_daemon` on the host, `daemon` in a container. */
const connectionSchema = z.looseObject({ user_daemon: daemonSchema.optional(), daemon: daemonSchema.optional() });

export const statusSchema = connectionSchema
  .extend({ connections: z.array(connectionSchema).optional() })
  .refine((s) => s.user_daemon !== undefined || s.daemon !== undefined || s.connections !== undefined, {
    message: 'none of user_daemon, daemon or connections is there',
  });
export type TelepresenceStatus = z.infer<typeof statusSchema>;

/** The one daemon takeover talks to; several connections (each would need `--use`) are refused by name. */
export function daemonOf(status: TelepresenceStatus): TelepresenceDaemon {
  const connections = status.connections ?? [status];
  if (connections.length > 1)
    throw new LeaseError(
      'runtime-failed',
      `Cannot use Telepresence: it has ${connections.length} connections (${connections.map((c) => `"${(c.daemon ?? c.user_daemon)?.name ?? '?'}"`).join(', ')}); takeover uses one: end the others (telepresence quit -s ends them all)`,
    );
  const one = connections[0];
  return one?.daemon ?? one?.user_daemon ?? {};
}

/**
 * The container a workload joins with `docker run --network container:<it>` to share the containerized daemon's
 * network (telepresence docker-run does the same: pkg/client/cli/intercept/docker_run.go); undefined when there is none.
 */
export function daemonContainer(daemon: TelepresenceDaemon): string | undefined {
  if (daemon.in_docker !== true || daemon.running !== true) return undefined;
  const network = daemon.container_network?.replace(/^container:/, '');
  // `default bridge`: no subnets to route, so no network to share (status.go).
  return network !== undefined && /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(network) ? network : undefined;
}

const interceptInfoSchema = z.looseObject({
  spec: z.looseObject({
    name: z.string(),
    namespace: z.string().optional(),
    container_name: z.string().optional(),
    port_identifier: z.string().optional(),
    target_port: z.number().int().optional(),
    replace: z.boolean().optional(),
  }),
  disposition: z.number().int().optional(),
});

const workloadSchema = z.looseObject({
  name: z.string(),
  namespace: z.string(),
  workload_resource_type: z.string().optional(),
  agent_version: z.string().optional(),
  intercept_info: z.array(interceptInfoSchema).optional(),
});
export type TelepresenceWorkload = z.infer<typeof workloadSchema>;

export const listSchema = z.looseObject({
  cmd: z.literal('list'),
  stdout: z.array(workloadSchema).optional(),
  err: z.string().optional(),
});

/** The attachment name `replace W --container C` gives: `W/C` (pkg/client/cli/intercept/command.go). */
export const attachmentName = (workload: string, container: string | undefined): string =>
  container === undefined ? workload : `${workload}/${container}`;

export const activeAttachments = (w: TelepresenceWorkload) =>
  (w.intercept_info ?? []).filter((i) => i.disposition === DISPOSITION_ACTIVE);

/** `OSS Client : v2.31.2` → [2, 31, 2]; undefined when the line is not there. */
export function clientVersion(text: string): readonly [number, number, number] | undefined {
  const m = /Client\s*:\s*v?(\d+)\.(\d+)\.(\d+)/.exec(text);
  return m === null ? undefined : [Number(m[1]), Number(m[2]), Number(m[3])];
}

export function parseTelepresence<T>(schema: z.ZodType<T>, text: string, what: string): T {
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
