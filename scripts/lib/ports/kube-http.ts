// The Kube port over plain HTTP(S): JSON in and out, the API server's own paths, one request per call.
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { z } from 'zod';
import { KubeError } from './kube-error.ts';
import { http } from './node-http.ts';
import { CONNECT_TIMEOUT_MS, IDLE_TIMEOUT_MS } from './kube-endpoint.ts';
import type { Connect, KubeEndpoint } from './kube-endpoint.ts';
import { KUBE_KINDS } from './kube-kinds.ts';
import type { KubeKind, KubeObject } from './kube-kinds.ts';
import { SELF_SUBJECT_REVIEWS, resourcePath } from './kube-paths.ts';
import type { Kube } from './kube-port.ts';
import { ApiResponseError, translate } from './kube-translate.ts';

const SelfSubjectReview = z.object({
  status: z.object({ userInfo: z.object({ username: z.string().min(1), groups: z.array(z.string()).default([]) }) }),
});

const JSON_TYPE = 'application/json';
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const USER_AGENT = 'pharos-delivery';

interface Call {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
}

function timeoutError(message: string): Error {
  return Object.assign(new Error(message), { code: 'ETIMEDOUT' });
}

/** One request; resolves with the body of a 2xx answer, rejects with ApiResponseError or the socket's error. */
async function send(endpoint: KubeEndpoint, call: Call): Promise<string> {
  try {
    return await sendOnce(endpoint, call);
  } catch (error) {
    // A kept-alive socket the server closed while it sat idle: the request never reached it (Node's documented retry),
    // and the other idle ones are as likely closed, so the retry opens a new connection.
    if (!(error instanceof StaleSocket)) throw error;
    for (const sockets of Object.values(endpoint.agent.freeSockets))
      for (const socket of sockets ?? []) socket.destroy();
    return await sendOnce(endpoint, call).catch((e: unknown) => {
      throw e instanceof StaleSocket ? e.cause : e;
    });
  }
}

class StaleSocket extends Error {}

function sendOnce(endpoint: KubeEndpoint, call: Call): Promise<string> {
  const url = new URL(endpoint.server + call.path);
  for (const [key, value] of Object.entries(call.query ?? {}))
    if (value !== undefined) url.searchParams.set(key, value);
  const body = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body), 'utf8');
  const headers: Record<string, string> = {
    Accept: 'application/json, */*;q=0.8',
    'User-Agent': USER_AGENT,
    ...endpoint.headers,
  };
  if (call.contentType !== undefined) headers['Content-Type'] = call.contentType;
  if (body !== undefined) headers['Content-Length'] = String(body.length);
  const request = url.protocol === 'https:' ? httpsRequest : http.request;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: call.method, agent: endpoint.agent, headers }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve(text);
        else reject(new ApiResponseError(status, text));
      });
    });
    let answered = false;
    req.on('response', () => {
      answered = true;
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (req.reusedSocket && !answered && error.code === 'ECONNRESET')
        reject(new StaleSocket('kept-alive socket closed', { cause: error }));
      else reject(error);
    });
    req.setTimeout(IDLE_TIMEOUT_MS, () =>
      req.destroy(timeoutError(`no answer for ${IDLE_TIMEOUT_MS / 1000} s from ${endpoint.server}`)),
    );
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(
        () => req.destroy(timeoutError(`cannot connect to ${endpoint.server} within ${CONNECT_TIMEOUT_MS / 1000} s`)),
        CONNECT_TIMEOUT_MS,
      );
      const clear = () => clearTimeout(timer);
      socket.once('connect', clear);
      socket.once('close', clear);
    });
    req.end(body);
  });
}

/** The port over `connect()`'s endpoint; every method behaves as the client-node one did (kube-port.ts). */
export function kubeOverHttp(connect: Connect): Kube {
  let requests = 0;

  async function call(c: Call, what: string, guarded = false): Promise<string> {
    try {
      const endpoint = await connect();
      requests++;
      return await send(endpoint, c);
    } catch (error) {
      throw translate(error, what, guarded);
    }
  }

  async function json(c: Call, what: string, guarded = false): Promise<unknown> {
    const text = await call(c, what, guarded);
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new KubeError(
        'request-failed',
        `Cannot ${what}: the API server's answer is not JSON (${text.slice(0, 80)})`,
        {
          cause: error,
        },
      );
    }
  }

  const plain = (kind: KubeKind, value: unknown): KubeObject => {
    const obj = value as KubeObject;
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
    method: 'POST' | 'PUT' | 'PATCH',
    namespace: string,
    name: string,
    body: unknown,
    extra: { status?: boolean; contentType?: string; guarded?: boolean } = {},
  ): Promise<KubeObject> => {
    const verb = method === 'POST' ? 'create' : method === 'PUT' ? 'replace' : 'patch';
    const path =
      method === 'POST'
        ? resourcePath(kind, namespace)
        : resourcePath(kind, namespace, name, extra.status === true ? 'status' : undefined);
    const c = { method, path, body, contentType: extra.contentType ?? JSON_TYPE };
    return plain(
      kind,
      await json(c, what(extra.status === true ? `${verb} status of` : verb, kind, namespace, name), extra.guarded),
    );
  };

  return {
    async get(kind, namespace, name) {
      try {
        return plain(
          kind,
          await json({ method: 'GET', path: resourcePath(kind, namespace, name) }, what('read', kind, namespace, name)),
        );
      } catch (error) {
        if (error instanceof KubeError && error.code === 'not-found') return undefined;
        throw error;
      }
    },
    async list(kind, namespace, opts = {}) {
      const result = (await json(
        { method: 'GET', path: resourcePath(kind, namespace), query: { labelSelector: opts.labelSelector } },
        `list ${kind} in "${namespace}"`,
      )) as { items?: unknown[] } | null;
      return (result?.items ?? []).map((item) => plain(kind, item));
    },
    create: (kind, namespace, object) => write(kind, 'POST', namespace, object.metadata.name, object),
    replace: (kind, namespace, object) => write(kind, 'PUT', namespace, object.metadata.name, object),
    replaceStatus: (kind, namespace, object) =>
      write(kind, 'PUT', namespace, object.metadata.name, object, { status: true }),
    mergePatch: (kind, namespace, name, patch) => write(kind, 'PATCH', namespace, name, patch, { contentType: MERGE }),
    mergePatchStatus: (kind, namespace, name, patch) =>
      write(kind, 'PATCH', namespace, name, patch, { status: true, contentType: MERGE }),
    // A `test` operation makes the patch a compare-and-swap: its 422 is a conflict.
    jsonPatch: (kind, namespace, name, operations) =>
      write(kind, 'PATCH', namespace, name, operations, {
        contentType: JSON_PATCH,
        guarded: operations.some((op) => op.op === 'test'),
      }),
    async delete(kind, namespace, name, opts = {}) {
      // The DeleteOptions client-node sent: only the fields set, no body at all without them.
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
        await call(
          { method: 'DELETE', path: resourcePath(kind, namespace, name), body, contentType: JSON_TYPE },
          what('delete', kind, namespace, name),
        );
        return true;
      } catch (error) {
        if (error instanceof KubeError && error.code === 'not-found') return false;
        throw error;
      }
    },
    podLogs: (namespace, name, opts = {}) =>
      call(
        { method: 'GET', path: resourcePath('Pod', namespace, name, 'log'), query: { container: opts.container } },
        what('read logs of', 'Pod', namespace, name),
      ),
    async whoAmI() {
      const review = await json(
        {
          method: 'POST',
          path: SELF_SUBJECT_REVIEWS,
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
          contentType: JSON_TYPE,
        },
        'create a SelfSubjectReview (who am I)',
      );
      const parsed = SelfSubjectReview.safeParse(review);
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
