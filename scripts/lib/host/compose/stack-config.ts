import { parse } from 'yaml';
import { z } from 'zod';
import { describeZodIssues } from '../../errors/zod-issues.ts';
import { ApplyError } from '../apply-error.ts';

export const ROLE_LABEL = 'hephaestus.role';

const labels = z.union([z.record(z.string(), z.string()), z.array(z.string())]).optional();

/** The part of `compose config` output a tick relies on (v1 and v2 render the same keys). */
const renderedSchema = z.looseObject({
  services: z.record(
    z.string(),
    z.looseObject({
      image: z.string().optional(),
      build: z.unknown().optional(),
      labels,
      stop_grace_period: z.union([z.string(), z.number()]).optional(),
      healthcheck: z.looseObject({ disable: z.boolean().optional() }).optional(),
    }),
  ),
});

export interface StackService {
  readonly name: string;
  readonly image: string | undefined;
  readonly role: string | undefined;
  /** stop_grace_period in seconds (Compose's default 10). */
  readonly stopGraceSeconds: number;
}

function labelMap(value: z.output<typeof labels>): Record<string, string> {
  if (value === undefined) return {};
  if (!Array.isArray(value)) return value;
  return Object.fromEntries(value.map((entry) => [entry.split('=')[0] ?? '', entry.slice(entry.indexOf('=') + 1)]));
}

/** Compose durations: `1m30s`, `10s`, `500ms`, or seconds as a number. */
export function durationSeconds(value: string | number | undefined): number {
  if (value === undefined) return 10;
  if (typeof value === 'number') return value;
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+(?:\.\d+)?)(ms|us|h|m|s)/g))
    total += Number(amount) * ({ h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001 }[unit as 'h'] ?? 1);
  return total;
}

/** Parses rendered Compose YAML into the services, their images, roles and grace periods. */
export function parseRenderedStack(text: string, where: string): StackService[] {
  let json: unknown;
  try {
    json = parse(text);
  } catch (cause) {
    throw new ApplyError('render', `Cannot read rendered ${where}: ${(cause as Error).message}`, { cause });
  }
  const parsed = renderedSchema.safeParse(json);
  if (!parsed.success)
    throw new ApplyError(
      'render',
      `Cannot read rendered ${where}:\n${describeZodIssues(where, json, parsed.error).join('\n')}`,
    );
  return Object.entries(parsed.data.services)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, service]) => ({
      name,
      image: service.image,
      role: labelMap(service.labels)[ROLE_LABEL],
      stopGraceSeconds: durationSeconds(service.stop_grace_period),
    }));
}

/** The `image:` of each service as written in the stack file, before interpolation. */
export function rawServiceImages(text: string, where: string): Map<string, string | undefined> {
  let json: unknown;
  try {
    json = parse(text);
  } catch (cause) {
    throw new ApplyError('render', `Cannot read ${where}: ${(cause as Error).message}`, { cause });
  }
  const services = z
    .looseObject({ services: z.record(z.string(), z.looseObject({ image: z.unknown().optional() })) })
    .safeParse(json);
  if (!services.success)
    throw new ApplyError(
      'render',
      `Cannot read ${where}:\n${describeZodIssues(where, json, services.error).join('\n')}`,
    );
  return new Map(
    Object.entries(services.data.services).map(([name, s]) => [
      name,
      typeof s.image === 'string' ? s.image : undefined,
    ]),
  );
}

/** The raw definition of every service whose image is `${variable}`, for comparing two commits. */
export function servicesUsingVariable(text: string, variable: string): Record<string, unknown> {
  const json = parse(text) as { services?: Record<string, { image?: unknown }> } | null;
  const out: Record<string, unknown> = {};
  for (const [name, service] of Object.entries(json?.services ?? {}))
    if (imageVariableOf(service?.image) === variable) out[name] = service;
  return out;
}

/** `${HEPHAESTUS_IMAGE_X}` or `$HEPHAESTUS_IMAGE_X` names the variable; anything else (a tag, a literal digest, a default) does not. */
export function imageVariableOf(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  return /^\$\{(HEPHAESTUS_IMAGE_[A-Z0-9_]+)\}$|^\$(HEPHAESTUS_IMAGE_[A-Z0-9_]+)$/
    .exec(raw.trim())
    ?.slice(1)
    .find((v) => v !== undefined);
}
