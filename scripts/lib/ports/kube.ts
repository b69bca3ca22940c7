// The Kube port: namespaced reads and compare-and-swap writes through the real @kubernetes/client-node.
import {
  ApiException,
  AppsV1Api,
  AuthenticationV1Api,
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  Observable,
} from '@kubernetes/client-node';
import { z } from 'zod';
import type {
  ConfigurationOptions,
  ObservableMiddleware,
  RequestContext,
  ResponseContext,
} from '@kubernetes/client-node';
import { ConflictError, KubeError } from './kube-error.ts';
import { KUBE_KINDS } from './kube-kinds.ts';
import type { JsonPatchOperation, KubeKind, KubeObject } from './kube-kinds.ts';

export interface ListOptions {
  readonly labelSelector?: string;
}

export interface DeleteOptions {
  readonly resourceVersion?: string;
  /** What happens to dependents (a Job's Pods): batch/v1 Jobs orphan them when none is named. */
  readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

export interface Kube {
  /** The object, or undefined when it does not exist. */
  get(kind: KubeKind, namespace: string, name: string): Promise<KubeObject | undefined>;
  list(kind: KubeKind, namespace: string, options?: ListOptions): Promise<KubeObject[]>;
  /** Fails with KubeError `already-exists` when the name is taken. */
  create(kind: KubeKind, namespace: string, object: KubeObject): Promise<KubeObject>;
  /** PUT; with `metadata.resourceVersion` set it is a compare-and-swap (ConflictError when stale). */
  replace(kind: KubeKind, namespace: string, object: KubeObject): Promise<KubeObject>;
  replaceStatus(kind: KubeKind, namespace: string, object: KubeObject): Promise<KubeObject>;
  /** RFC 7386; include `metadata.resourceVersion` in the patch to make it a compare-and-swap. */
  mergePatch(kind: KubeKind, namespace: string, name: string, patch: Record<string, unknown>): Promise<KubeObject>;
  mergePatchStatus(
    kind: KubeKind,
    namespace: string,
    name: string,
    patch: Record<string, unknown>,
  ): Promise<KubeObject>;
  /** RFC 6902; a failed `test` operation is a ConflictError like a stale resourceVersion. */
  jsonPatch(
    kind: KubeKind,
    namespace: string,
    name: string,
    operations: readonly JsonPatchOperation[],
  ): Promise<KubeObject>;
  /**
   * True when the API server accepted the deletion (the object may stay a while, Terminating, until its finalizers
   * and grace period are done), false when it was already gone; `resourceVersion` makes it conditional.
   */
  delete(kind: KubeKind, namespace: string, name: string, options?: DeleteOptions): Promise<boolean>;
  podLogs(namespace: string, name: string, options?: { container?: string }): Promise<string>;
  /** Who the API server says this client is (a SelfSubjectReview, Kubernetes >= 1.28). */
  whoAmI(): Promise<UserInfo>;
  /** HTTP requests sent so far (benchmarks report it). */
  requestCount(): number;
}

export interface UserInfo {
  readonly username: string;
  readonly groups: readonly string[];
}

const SelfSubjectReview = z.object({
  status: z.object({ userInfo: z.object({ username: z.string().min(1), groups: z.array(z.string()).default([]) }) }),
});

const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

type Call = (param: Record<string, unknown>, options?: ConfigurationOptions) => Promise<unknown>;

export function kubeFromFile(path: string, context?: string): Kube {
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(path);
    if (context !== undefined) kc.setCurrentContext(context);
  } catch (error) {
    throw new KubeError(
      'config',
      `Cannot load kubeconfig "${path}": ${(error as Error).message} (set KUBECONFIG, or kube.kubeconfig and kube.context in the target profile; without a dev box, make demo-devbox shows the loop on simulators)`,
      { details: { path }, cause: error },
    );
  }
  if (!kc.getCurrentCluster())
    throw new KubeError(
      'config',
      `Cannot use kubeconfig "${path}": no current cluster${context ? ` for context "${context}"` : ''}`,
      { details: { path, context } },
    );
  return kubeFromConfig(kc);
}

export function kubeFromConfig(kc: KubeConfig): Kube {
  const apis = {
    core: kc.makeApiClient(CoreV1Api),
    batch: kc.makeApiClient(BatchV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    authentication: kc.makeApiClient(AuthenticationV1Api),
  };
  let requests = 0;

  function options(contentType?: string): ConfigurationOptions {
    // The object-parameter API runs per-call middleware as observables (the library's own stub).
    const middleware: ObservableMiddleware = {
      pre: (ctx: RequestContext) => {
        requests++;
        if (contentType !== undefined) ctx.setHeaderParam('Content-Type', contentType);
        return new Observable(Promise.resolve(ctx));
      },
      post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
    };
    return { middleware: [middleware], middlewareMergeStrategy: 'append' };
  }

  function method(
    kind: KubeKind,
    verb: 'read' | 'create' | 'replace' | 'patch' | 'delete' | 'list',
    status = false,
  ): { call: Call; params: Record<string, unknown> } {
    const k = KUBE_KINDS[kind];
    const suffix = status ? 'Status' : '';
    const api = apis[k.api] as unknown as Record<string, Call>;
    const name =
      k.api === 'custom'
        ? `${verb === 'read' ? 'get' : verb}NamespacedCustomObject${suffix}`
        : `${verb}Namespaced${kind}${suffix}`;
    const fn = api[name];
    if (typeof fn !== 'function')
      throw new KubeError('request-failed', `Cannot ${verb} ${kind}${suffix}: the client has no ${name}`);
    const params = k.api === 'custom' ? { group: k.group, version: k.version, plural: k.plural } : {};
    return { call: fn.bind(api), params };
  }

  async function run(
    kind: KubeKind,
    verb: 'read' | 'create' | 'replace' | 'patch' | 'delete' | 'list',
    param: Record<string, unknown>,
    extra: { status?: boolean; contentType?: string; what: string; guarded?: boolean },
  ): Promise<unknown> {
    const { call, params } = method(kind, verb, extra.status);
    try {
      return await call({ ...params, ...param }, options(extra.contentType));
    } catch (error) {
      throw translate(error, extra.what, extra.guarded === true);
    }
  }

  const plain = (kind: KubeKind, value: unknown): KubeObject => {
    const obj = JSON.parse(JSON.stringify(value)) as KubeObject;
    // Built-in lists omit kind/apiVersion on items; fill them so every object names its type.
    obj.apiVersion ??= KUBE_KINDS[kind].apiVersion;
    obj.kind ??= kind;
    return obj;
  };
  const what = (verb: string, kind: KubeKind, namespace: string, name: string) =>
    `${verb} ${kind} "${namespace}/${name}"`;

  return {
    async get(kind, namespace, name) {
      try {
        return plain(kind, await run(kind, 'read', { namespace, name }, { what: what('read', kind, namespace, name) }));
      } catch (error) {
        if (error instanceof KubeError && error.code === 'not-found') return undefined;
        throw error;
      }
    },
    async list(kind, namespace, opts = {}) {
      const result = (await run(
        kind,
        'list',
        { namespace, labelSelector: opts.labelSelector },
        { what: `list ${kind} in "${namespace}"` },
      )) as { items?: unknown[] };
      return (result.items ?? []).map((item) => plain(kind, item));
    },
    async create(kind, namespace, object) {
      return plain(
        kind,
        await run(
          kind,
          'create',
          { namespace, body: object },
          { what: what('create', kind, namespace, object.metadata.name) },
        ),
      );
    },
    async replace(kind, namespace, object) {
      const name = object.metadata.name;
      return plain(
        kind,
        await run(kind, 'replace', { namespace, name, body: object }, { what: what('replace', kind, namespace, name) }),
      );
    },
    async replaceStatus(kind, namespace, object) {
      const name = object.metadata.name;
      return plain(
        kind,
        await run(
          kind,
          'replace',
          { namespace, name, body: object },
          { status: true, what: what('replace status of', kind, namespace, name) },
        ),
      );
    },
    async mergePatch(kind, namespace, name, patch) {
      return plain(
        kind,
        await run(
          kind,
          'patch',
          { namespace, name, body: patch },
          { contentType: MERGE, what: what('patch', kind, namespace, name) },
        ),
      );
    },
    async mergePatchStatus(kind, namespace, name, patch) {
      return plain(
        kind,
        await run(
          kind,
          'patch',
          { namespace, name, body: patch },
          { status: true, contentType: MERGE, what: what('patch status of', kind, namespace, name) },
        ),
      );
    },
    async jsonPatch(kind, namespace, name, operations) {
      return plain(
        kind,
        await run(
          kind,
          'patch',
          { namespace, name, body: operations },
          {
            contentType: JSON_PATCH,
            guarded: operations.some((op) => op.op === 'test'),
            what: what('patch', kind, namespace, name),
          },
        ),
      );
    },
    async delete(kind, namespace, name, opts = {}) {
      const body =
        opts.resourceVersion === undefined && opts.propagationPolicy === undefined
          ? undefined
          : {
              ...(opts.resourceVersion === undefined
                ? {}
                : { preconditions: { resourceVersion: opts.resourceVersion } }),
              ...(opts.propagationPolicy === undefined ? {} : { propagationPolicy: opts.propagationPolicy }),
            };
      try {
        await run(kind, 'delete', { namespace, name, body }, { what: what('delete', kind, namespace, name) });
        return true;
      } catch (error) {
        if (error instanceof KubeError && error.code === 'not-found') return false;
        throw error;
      }
    },
    async podLogs(namespace, name, opts = {}) {
      try {
        return await apis.core.readNamespacedPodLog({ namespace, name, container: opts.container }, options());
      } catch (error) {
        throw translate(error, what('read logs of', 'Pod', namespace, name), false);
      }
    },
    async whoAmI() {
      let review: unknown;
      try {
        review = await apis.authentication.createSelfSubjectReview(
          { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } },
          options(),
        );
      } catch (error) {
        throw translate(error, 'create a SelfSubjectReview (who am I)', false);
      }
      const parsed = SelfSubjectReview.safeParse(JSON.parse(JSON.stringify(review)));
      if (!parsed.success)
        throw new KubeError(
          'invalid',
          `Cannot read the SelfSubjectReview's status.userInfo: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
      return parsed.data.status.userInfo;
    },
    requestCount: () => requests,
  };
}

function statusBody(body: unknown): { message?: string; reason?: string } {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as { message?: string; reason?: string };
    } catch {
      return { message: body };
    }
  }
  return typeof body === 'object' && body !== null ? (body as { message?: string; reason?: string }) : {};
}

// `guarded`: a JSON patch with `test` operations, whose 422 means the object is not what the caller read.
function translate(error: unknown, what: string, guarded: boolean): KubeError {
  if (error instanceof KubeError) return error;
  if (error instanceof ApiException) {
    const status = error.code;
    const body = statusBody(error.body);
    // The generated client keeps no body for a 401: say what it means.
    const message =
      status === 401
        ? `Cannot ${what}: the API server does not accept this kubeconfig's credentials (401 Unauthorized)`
        : `Cannot ${what}: ${body.message ?? `HTTP ${status}`}`;
    const details = { status, reason: body.reason };
    if (status === 409 && body.reason === 'AlreadyExists')
      return new KubeError('already-exists', message, { status, details, cause: error });
    if (status === 409 || (status === 422 && guarded))
      return new ConflictError(message, { status, details, cause: error });
    if (status === 404) return new KubeError('not-found', message, { status, details, cause: error });
    if (status === 400 || status === 422 || status === 415)
      return new KubeError('invalid', message, { status, details, cause: error });
    if (status === 429 || status >= 500)
      return new KubeError('unavailable', message, { status, details, cause: error });
    return new KubeError('request-failed', message, { status, details, cause: error });
  }
  const code = errnoOf(error);
  const text = code ?? (error instanceof Error ? error.message : String(error));
  return new KubeError('unavailable', `Cannot ${what}: API server unreachable (${text})`, {
    details: { errno: code },
    cause: error,
  });
}

// fetch wraps the socket error (`ECONNREFUSED`, `ECONNRESET`) in its `cause` chain.
function errnoOf(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return undefined;
}
