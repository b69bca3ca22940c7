// AppProject.spec.syncWindows[] as Argo CD defines it (fields per docs/reference/argocd-sync-windows).
import { z } from 'zod';
import { scheduleProblem } from './cron-schedule.ts';
import { parseGoDuration } from './go-duration.ts';

export const syncWindowSchema = z.looseObject({
  kind: z.enum(['allow', 'deny'], { error: 'kind must be "allow" or "deny"' }),
  schedule: z.string().superRefine((value, ctx) => {
    const problem = scheduleProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `invalid cron schedule: ${problem}` });
  }),
  duration: z.string().refine((value) => parseGoDuration(value) !== undefined, {
    message: 'invalid Go duration (use h, m, s units: "12h", "90m", "1h30m")',
  }),
  applications: z.array(z.string()).optional(),
  namespaces: z.array(z.string()).optional(),
  clusters: z.array(z.string()).optional(),
  manualSync: z.boolean().optional(),
  timeZone: z.string().optional(),
  andOperator: z.boolean().optional(),
  // Go's len(): bytes of UTF-8, not characters.
  description: z
    .string()
    .refine((d) => new TextEncoder().encode(d).length <= 255, { message: 'description must not exceed 255 characters' })
    .optional(),
  syncOverrun: z.boolean().optional(),
});

export type SyncWindow = z.infer<typeof syncWindowSchema>;
