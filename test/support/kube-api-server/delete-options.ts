// DeleteOptions of a DELETE: from the body (what client-node and kubectl send) or from the query string.
import { z } from 'zod';
import type { DeleteOptions } from './object-store.ts';
import { ApiFailureError, failure } from './status.ts';

const bodySchema = z.looseObject({
  preconditions: z.looseObject({ resourceVersion: z.string().optional(), uid: z.string().optional() }).optional(),
  propagationPolicy: z.string().optional(),
  orphanDependents: z.boolean().optional(),
  gracePeriodSeconds: z.number().int().optional(),
  dryRun: z.array(z.string()).optional(),
});

export function deleteOptions(body: unknown, query: URLSearchParams): DeleteOptions {
  const parsed = bodySchema.safeParse(body);
  if (!parsed.success)
    throw new ApiFailureError(
      failure(400, `DeleteOptions: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`),
    );
  const b = parsed.data;
  const grace = query.get('gracePeriodSeconds');
  const orphan = query.get('orphanDependents');
  const dryRun = [...(b.dryRun ?? []), ...query.getAll('dryRun')];
  if (dryRun.some((d) => d !== 'All'))
    throw new ApiFailureError(failure(400, `dryRun: Unsupported value: ${JSON.stringify(dryRun)}`));
  return {
    ...(b.preconditions?.resourceVersion !== undefined ? { resourceVersion: b.preconditions.resourceVersion } : {}),
    ...(b.preconditions?.uid !== undefined ? { uid: b.preconditions.uid } : {}),
    ...((b.propagationPolicy ?? query.get('propagationPolicy'))
      ? { propagationPolicy: (b.propagationPolicy ?? query.get('propagationPolicy')) as string }
      : {}),
    ...(b.orphanDependents !== undefined
      ? { orphanDependents: b.orphanDependents }
      : orphan !== null
        ? { orphanDependents: orphan === 'true' }
        : {}),
    ...(b.gracePeriodSeconds !== undefined
      ? { gracePeriodSeconds: b.gracePeriodSeconds }
      : grace !== null
        ? { gracePeriodSeconds: Number(grace) }
        : {}),
    dryRun: dryRun.length > 0,
  };
}
