import { ToolkitError } from '../errors/toolkit-error.ts';
import { describeZodIssues } from '../errors/zod-issues.ts';
import type { z } from 'zod';

export type ArgoCdErrorCode = 'invalid';

/** An Application or AppProject that does not have the shape Argo CD gives it. */
export class ArgoCdError extends ToolkitError<ArgoCdErrorCode> {
  constructor(message: string, options: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super('invalid', message, { ...options, exitCode: 1 });
  }
}

/** Parses with `schema`, or throws naming the object (`AppProject argocd/pharos`), each bad field and its value. */
export function parseArgoObject<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const lines = describeZodIssues(what, input, result.error);
  throw new ArgoCdError(`Cannot read ${what}:\n${lines.join('\n')}`, { details: { issues: lines } });
}
