import { z } from 'zod';
import type { KubeObject } from '../ports/kube-kinds.ts';

const schema = z.looseObject({
  spec: z
    .looseObject({
      syncPolicy: z
        .looseObject({ automated: z.looseObject({}).nullable().optional() })
        .nullable()
        .optional(),
    })
    .optional(),
  operation: z
    .looseObject({ sync: z.looseObject({ revision: z.string().optional() }).optional() })
    .nullable()
    .optional(),
  status: z
    .looseObject({
      sync: z.looseObject({ status: z.string().optional(), revision: z.string().optional() }).optional(),
      health: z.looseObject({ status: z.string().optional(), message: z.string().optional() }).optional(),
      operationState: z
        .looseObject({
          phase: z.string().optional(),
          message: z.string().optional(),
          startedAt: z.string().optional(),
          syncResult: z.looseObject({ revision: z.string().optional() }).nullable().optional(),
          operation: z.looseObject({ sync: z.looseObject({ revision: z.string().optional() }).optional() }).optional(),
        })
        .nullable()
        .optional(),
    })
    .optional(),
});

/** The parts of an Argo CD Application the delivery waits on. */
export interface ApplicationState {
  readonly name: string;
  readonly automated: boolean;
  readonly syncStatus: string;
  readonly syncRevision: string | undefined;
  readonly health: string;
  readonly healthMessage: string | undefined;
  /** A requested or running operation and the revision it syncs. */
  readonly operation:
    | { readonly phase: string; readonly revision: string | undefined; readonly message: string | undefined }
    | undefined;
  /** The last finished operation: its phase (Succeeded, Failed, Error), the revision it synced and Argo CD's message. */
  readonly lastOperation?:
    | {
        readonly phase: string;
        readonly revision: string | undefined;
        readonly message: string | undefined;
        readonly startedAt: string | undefined;
      }
    | undefined;
}

export function applicationState(object: KubeObject): ApplicationState {
  const app = schema.parse(object);
  const op = app.status?.operationState ?? undefined;
  const requested = app.operation ?? undefined;
  const running = op !== undefined && (op.phase === 'Running' || op.phase === 'Terminating');
  const operation = running
    ? { phase: op.phase ?? 'Running', revision: op.operation?.sync?.revision, message: op.message }
    : requested !== undefined
      ? { phase: 'Requested', revision: requested.sync?.revision, message: undefined }
      : undefined;
  return {
    name: object.metadata.name,
    automated: app.spec?.syncPolicy?.automated != null,
    syncStatus: app.status?.sync?.status ?? 'Unknown',
    syncRevision: app.status?.sync?.revision,
    health: app.status?.health?.status ?? 'Unknown',
    healthMessage: app.status?.health?.message,
    operation,
    lastOperation:
      op !== undefined && !running
        ? {
            phase: op.phase ?? 'Unknown',
            revision: op.syncResult?.revision ?? op.operation?.sync?.revision,
            message: op.message,
            startedAt: op.startedAt,
          }
        : undefined,
  };
}

export function settledAt(state: ApplicationState, commit: string): boolean {
  return (
    state.operation === undefined &&
    state.syncStatus === 'Synced' &&
    state.syncRevision === commit &&
    state.health === 'Healthy'
  );
}

export function describeState(state: ApplicationState): string {
  const op =
    state.operation === undefined
      ? ''
      : `, operation ${state.operation.phase} for ${state.operation.revision?.slice(0, 12) ?? '?'}`;
  return `${state.name}: ${state.syncStatus} at ${state.syncRevision?.slice(0, 12) ?? '-'}, ${state.health}${op}`;
}
