// What the Telepresence 2.31 CLI prints that takeover reads (docs/takeover.md "Telepresence"): `status --output json`
// (a bare object; with no user daemon every member is zero: `{"running":false,...}`), `list --output json`
// (`{"cmd":"list","stdout":[WorkloadInfo…]}`, an error as `"err"`), the proto key names and enum numbers of
// WorkloadInfo/InterceptInfo, and `version`. Held against the fixtures in test/support/contracts/telepresence/.
import { z } from 'zod';
import { LeaseError } from '../../ownership/lease-error.ts';

/** rpc/manager/manager.proto InterceptDispositionType: encoding/json prints the enum's number. */
export const DISPOSITION_ACTIVE = 1;

export const statusSchema = z.looseObject({
  user_daemon: z.looseObject({
    running: z.boolean().optional(),
    status: z.string().optional(),
    namespace: z.string().optional(),
  }),
});
export type TelepresenceStatus = z.infer<typeof statusSchema>;

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
