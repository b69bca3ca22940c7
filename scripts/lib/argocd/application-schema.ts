// The parts of argoproj.io/v1alpha1 Application and AppProject the toolkit reads; unknown fields pass through.
import { z } from 'zod';
import { syncWindowSchema } from './sync-window-schema.ts';

const metadata = z.looseObject({
  name: z.string().min(1),
  namespace: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});

const kustomizePatch = z.looseObject({
  path: z.string().optional(),
  patch: z.string().optional(),
  target: z
    .looseObject({
      group: z.string().optional(),
      version: z.string().optional(),
      kind: z.string().optional(),
      name: z.string().optional(),
      namespace: z.string().optional(),
      labelSelector: z.string().optional(),
      annotationSelector: z.string().optional(),
    })
    .optional(),
});

export const applicationSourceSchema = z.looseObject({
  repoURL: z.string().min(1),
  path: z.string().optional(),
  targetRevision: z.string().optional(),
  kustomize: z
    .looseObject({
      images: z.array(z.string()).optional(),
      patches: z.array(kustomizePatch).optional(),
    })
    .optional(),
});

export const destinationSchema = z.looseObject({
  server: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
});

const operationSchema = z.looseObject({
  sync: z
    .looseObject({
      revision: z.string().optional(),
      prune: z.boolean().optional(),
    })
    .optional(),
  initiatedBy: z.looseObject({ username: z.string().optional(), automated: z.boolean().optional() }).optional(),
});

const resourceResult = z.looseObject({
  group: z.string().optional(),
  kind: z.string(),
  namespace: z.string().optional(),
  name: z.string(),
  status: z.string().optional(),
  message: z.string().optional(),
});

export const operationStateSchema = z.looseObject({
  operation: operationSchema,
  phase: z.enum(['Running', 'Terminating', 'Failed', 'Error', 'Succeeded']),
  message: z.string().optional(),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  syncResult: z.looseObject({ revision: z.string(), resources: z.array(resourceResult).optional() }).optional(),
});

export const applicationSchema = z.looseObject({
  apiVersion: z.literal('argoproj.io/v1alpha1').optional(),
  kind: z.literal('Application').optional(),
  metadata,
  spec: z.looseObject({
    project: z.string().default('default'),
    source: applicationSourceSchema.optional(),
    destination: destinationSchema.default({}),
    syncPolicy: z
      .looseObject({
        automated: z
          .looseObject({
            prune: z.boolean().optional(),
            selfHeal: z.boolean().optional(),
            enabled: z.boolean().optional(),
          })
          .optional(),
        syncOptions: z.array(z.string()).optional(),
      })
      .optional(),
    ignoreDifferences: z
      .array(
        z.looseObject({
          group: z.string().optional(),
          kind: z.string(),
          name: z.string().optional(),
          namespace: z.string().optional(),
          jsonPointers: z.array(z.string()).optional(),
          jqPathExpressions: z.array(z.string()).optional(),
          managedFieldsManagers: z.array(z.string()).optional(),
        }),
      )
      .optional(),
  }),
  operation: operationSchema.optional(),
  status: z
    .looseObject({
      sync: z
        .looseObject({ status: z.enum(['Synced', 'OutOfSync', 'Unknown']), revision: z.string().optional() })
        .optional(),
      health: z.looseObject({ status: z.string(), message: z.string().optional() }).optional(),
      operationState: operationStateSchema.optional(),
      reconciledAt: z.string().optional(),
    })
    .optional(),
});

const groupKind = z.looseObject({ group: z.string(), kind: z.string() });

export const appProjectSchema = z.looseObject({
  apiVersion: z.literal('argoproj.io/v1alpha1').optional(),
  kind: z.literal('AppProject').optional(),
  metadata,
  spec: z.looseObject({
    sourceRepos: z.array(z.string()).optional(),
    destinations: z.array(destinationSchema).optional(),
    namespaceResourceWhitelist: z.array(groupKind).optional(),
    namespaceResourceBlacklist: z.array(groupKind).optional(),
    syncWindows: z.array(syncWindowSchema).optional(),
  }),
});

export type Application = z.infer<typeof applicationSchema>;
export type AppProject = z.infer<typeof appProjectSchema>;
export type OperationState = z.infer<typeof operationStateSchema>;
export type ApplicationSource = z.infer<typeof applicationSourceSchema>;
