// zod at the function boundary: a bad argument is one error naming the argument and its value.
import { z } from 'zod';
import { IMAGE_NAME } from '../lib/catalogue/catalogue-schema.ts';
import { ModuleError } from './module-error.ts';

export const imageName = z.string().regex(IMAGE_NAME, `must be a catalogue name matching ${IMAGE_NAME.source}`);
/** `host[:port]` with an optional path, as a push address starts. */
export const registry = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9.-]*(:[0-9]{1,5})?(\/[a-z0-9._-]+)*$/,
    'must be "<host>[:<port>][/<path>]", e.g. "ghcr.io/acme"',
  );
export const revision = z
  .string()
  .min(1)
  .regex(/^[^-\s][^\s]*$/, 'must be a commit, branch or tag (no spaces, no leading "-")');
export const url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
export const username = z
  .string()
  .min(1)
  .regex(/^[^\s:]+$/, 'must be a user name without spaces or ":"');

export function parseArgument<T>(name: string, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problem = parsed.error.issues.map((issue) => issue.message).join('; ');
  throw new ModuleError('bad-argument', `Invalid argument "${name}" ${JSON.stringify(value)}: ${problem}`, {
    details: { argument: name, value },
  });
}
