// The Kube port: namespaced reads and compare-and-swap writes through the real @kubernetes/client-node.
import {
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
import { KubeError } from './kube-error.ts';
import { translate } from './kube-translate.ts';
import { KUBE_KINDS } from './kube-kinds.ts';
import type { JsonPatchOperation, KubeKind, KubeObject } from './kube-kinds.ts';
import type { DeleteOptions, Kube, ListOptions, UserInfo } from './kube-port.ts';

export type { DeleteOptions, Kube, ListOptions, UserInfo } from './kube-port.ts';

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
  // One write: the object back as plain JSON, an error naming the verb and the object.
  const write = async (
    kind: KubeKind,
    verb: 'create' | 'replace' | 'patch',
    namespace: string,
    name: string,
    body: unknown,
    extra: { status?: boolean; contentType?: string; guarded?: boolean } = {},
  ): Promise<KubeObject> =>
    plain(
      kind,
      await run(kind, verb, verb === 'create' ? { namespace, body } : { namespace, name, body }, {
        ...extra,
        what: what(extra.status === true ? `${verb} status of` : verb, kind, namespace, name),
      }),
    );

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
    create: (kind, namespace, object) => write(kind, 'create', namespace, object.metadata.name, object),
    replace: (kind, namespace, object) => write(kind, 'replace', namespace, object.metadata.name, object),
    replaceStatus: (kind, namespace, object) =>
      write(kind, 'replace', namespace, object.metadata.name, object, { status: true }),
    mergePatch: (kind, namespace, name, patch) => write(kind, 'patch', namespace, name, patch, { contentType: MERGE }),
    mergePatchStatus: (kind, namespace, name, patch) =>
      write(kind, 'patch', namespace, name, patch, { status: true, contentType: MERGE }),
    // A `test` operation makes the patch a compare-and-swap: its 422 is a conflict.
    jsonPatch: (kind, namespace, name, operations) =>
      write(kind, 'patch', namespace, name, operations, {
        contentType: JSON_PATCH,
        guarded: operations.some((op) => op.op === 'test'),
      }),
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
