// Test Kubernetes API server (a simulator: no Kubernetes runs here) with the semantics the toolkit relies on.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { systemClock } from '../../../scripts/lib/ports/clock.ts';
import type { Clock } from '../../../scripts/lib/ports/clock.ts';
import { ObjectStore } from './object-store.ts';
import type { KubeObject } from './object-store.ts';
import { RESOURCE_TYPES, apiGroupList, apiVersionOf, discoveryList } from './resources.ts';
import { ClusterControllers } from './cluster-controllers.ts';
import { deleteOptions } from './delete-options.ts';
import { scaleOf, scaleUpdate } from './scale.ts';
import type { ResourceType } from './resources.ts';
import { route } from './routes.ts';
import { ApiFailureError, failure, success } from './status.ts';
import type { ApiFailure } from './status.ts';
import { applyMergePatch } from './merge-patch.ts';
import { applyStrategicMergePatch } from './strategic-merge-patch.ts';
import { JsonPatchError, applyJsonPatch } from './json-patch.ts';
import { SelectorError, parseLabelSelector } from './label-selector.ts';
import { parseFieldSelector, streamWatch } from './watch-stream.ts';
import { decodeWrite, fieldValidation } from './field-validation.ts';
import { authorize, forbiddenMessage, verbOf } from './rbac.ts';
import type { RequestAttributes } from './rbac.ts';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly contentType: string | undefined;
}

export interface KubeApiServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly store: ObjectStore;
  /** Every request received (including refused-with-503 ones), in order. */
  readonly requests: readonly RecordedRequest[];
  requestCount(): number;
  resetRequests(): void;
  /** Answer 503 ServiceUnavailable to the next `count` requests (default: until `recover()`). */
  unavailable(count?: number): void;
  /** Stop listening: clients get ECONNREFUSED until `recover()` listens again on the same port. */
  refuseConnections(): Promise<void>;
  recover(): Promise<void>;
  /** Hold the simulated garbage collector, namespace controller and kubelet (a slow control plane) until `resumeControllers()`. */
  pauseControllers(): void;
  resumeControllers(): void;
  /** Creates a Namespace (as `kubectl create namespace` would); writes into a namespace that does not exist answer 404. */
  addNamespace(name: string): void;
  /** What `GET …/pods/{name}/log` returns (the simulators write it). */
  setPodLog(namespace: string, name: string, text: string): void;
  /** A bearer token this server authenticates as `username` (a SelfSubjectReview reports it). */
  addUser(token: string, username: string, groups?: readonly string[]): void;
  /** A Role with `rules` and a RoleBinding of it to user `username` in `namespace` (as `kubectl create role/rolebinding`). */
  grant(
    namespace: string,
    username: string,
    rules: readonly { apiGroups: string[]; resources: string[]; verbs: string[] }[],
  ): void;
  /** A client config; `token` picks the identity (default: the administrator, `system:admin`). */
  kubeConfig(namespace?: string, token?: string): KubeConfig;
  writeKubeconfig(path: string, namespace?: string, token?: string): Promise<void>;
  close(): Promise<void>;
}

export interface UserInfo {
  readonly username: string;
  readonly groups: readonly string[];
}

/** The default token's identity: what k3s's admin kubeconfig authenticates as (client certificate CN and O). */
export const ADMIN_TOKEN = 'pharos-test-token';
export const ADMIN_USER: UserInfo = { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] };
const SELF_SUBJECT_REVIEWS = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

export interface KubeApiServerOptions {
  readonly clock?: Clock;
  /** Namespaces that exist from the start, besides `default`, `kube-system`, `kube-public` and `kube-node-lease`. */
  readonly namespaces?: readonly string[];
  /** How long the simulated garbage collector, namespace controller and kubelet wait after a write (default 20 ms). */
  readonly controllerDelayMs?: number;
  /** Past events kept for watches from a resourceVersion (default 1000); older ones get 410 Expired. */
  readonly watchHistory?: number;
}

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function send(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiFailureError(failure(400, `couldn't decode the request body as JSON: ${(error as Error).message}`));
  }
}

function listOf(type: ResourceType, items: KubeObject[], revision: string): Record<string, unknown> {
  // The real server omits kind/apiVersion on the items of built-in lists.
  const shown = type.builtIn ? items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest) : items;
  return {
    kind: `${type.kind}List`,
    apiVersion: apiVersionOf(type),
    metadata: { resourceVersion: revision },
    items: shown,
  };
}

const PATCH_TYPES = [
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
];

// Checked before the object is read, as the real server rejects the media type first.
function checkPatchType(type: ResourceType, contentType: string): string {
  const media = contentType.split(';')[0]?.trim() ?? '';
  const accepted = type.builtIn ? PATCH_TYPES : PATCH_TYPES.slice(0, 2);
  if (!accepted.includes(media)) {
    throw new ApiFailureError(
      failure(
        415,
        `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
      ),
    );
  }
  return media;
}

function patchObject(type: ResourceType, current: KubeObject, contentType: string, body: unknown): unknown {
  const media = checkPatchType(type, contentType);
  if (media === 'application/strategic-merge-patch+json') return applyStrategicMergePatch(current, body) ?? {};
  if (media !== 'application/json-patch+json') return applyMergePatch(current, body);
  try {
    return applyJsonPatch(current, body);
  } catch (error) {
    // The real API server answers every JSON patch application error with 422 and the patch library's message.
    if (error instanceof JsonPatchError) throw new ApiFailureError(failure(422, error.message));
    throw error;
  }
}

export async function startKubeApiServer(options: KubeApiServerOptions = {}): Promise<KubeApiServer> {
  const store = new ObjectStore(options.clock ?? systemClock, options.watchHistory);
  const namespaceType = RESOURCE_TYPES.find((t) => t.kind === 'Namespace') as ResourceType;
  for (const ns of new Set([...SYSTEM_NAMESPACES, ...(options.namespaces ?? [])]))
    store.create(namespaceType, '', { metadata: { name: ns } });
  const controllers = new ClusterControllers(store, options.controllerDelayMs ?? 20);
  store.watch(Number(store.revision), () => controllers.schedule());
  const requests: RecordedRequest[] = [];
  const logs = new Map<string, string>();
  const sockets = new Set<Socket>();
  let failing = 0;
  const users = new Map<string, UserInfo>([[ADMIN_TOKEN, ADMIN_USER]]);

  // Authentication only: a bearer token the server does not know is 401, as on a real server; no token is anonymous.
  // Nothing is authorised or denied by identity here (the test server has no RBAC or admission policies).
  function identify(req: IncomingMessage): UserInfo {
    const header = req.headers.authorization;
    if (header === undefined) return { username: 'system:anonymous', groups: ['system:unauthenticated'] };
    const user = /^Bearer (.+)$/.exec(header) ? users.get(header.slice('Bearer '.length)) : undefined;
    if (user === undefined) throw new ApiFailureError(failure(401, 'Unauthorized'));
    return user;
  }

  // RBAC for authenticated callers; anonymous requests (tests reading the store over plain HTTP) are not checked.
  function authorizeRequest(user: UserInfo, attributes: RequestAttributes): void {
    if (user.username === 'system:anonymous') return;
    const rbac = (kind: string) =>
      attributes.namespace === ''
        ? []
        : store.list(RESOURCE_TYPES.find((t) => t.kind === kind) as ResourceType, attributes.namespace, []);
    if (!authorize(user, attributes, rbac('Role'), rbac('RoleBinding'))) {
      throw new ApiFailureError(
        failure(403, forbiddenMessage(user, attributes), 'Forbidden', {
          name: attributes.name || undefined,
          group: attributes.group,
          kind: attributes.resource,
        }),
      );
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const contentType = req.headers['content-type'];
    requests.push({ method, path: url.pathname + url.search, contentType });
    if (failing > 0) {
      failing--;
      send(res, 503, failure(503, 'the server is currently unable to handle the request').body);
      return;
    }
    const user = identify(req);
    if (url.pathname === SELF_SUBJECT_REVIEWS) {
      if (method !== 'POST')
        throw new ApiFailureError(
          failure(405, `method ${method} is not allowed: a SelfSubjectReview can only be created`),
        );
      await readBody(req);
      return send(res, 201, {
        kind: 'SelfSubjectReview',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { creationTimestamp: null },
        status: { userInfo: { username: user.username, groups: [...user.groups] } },
      });
    }
    const r = route(url.pathname);
    if (r.kind === 'unknown')
      throw new ApiFailureError(failure(404, 'the server could not find the requested resource'));
    if (r.kind === 'discovery') {
      if (method !== 'GET') throw new ApiFailureError(failure(405, 'method not allowed'));
      const p = url.pathname.replace(/\/$/, '');
      if (p === '/version')
        return send(res, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0-pharos-test-server' });
      if (p === '/api')
        return send(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
      if (p === '/apis') return send(res, 200, apiGroupList());
      const m = /^\/api\/([^/]+)$|^\/apis\/([^/]+)\/([^/]+)$/.exec(p);
      const list = m ? (m[1] ? discoveryList('', m[1]) : discoveryList(m[2] as string, m[3] as string)) : undefined;
      if (!list) throw new ApiFailureError(failure(404, 'the server could not find the requested resource'));
      return send(res, 200, list);
    }
    const { type, name, subresource } = r;
    const namespace = type.clusterScoped ? '' : r.namespace;
    authorizeRequest(user, {
      verb: verbOf(method, name !== undefined, ['true', '1'].includes(url.searchParams.get('watch') ?? '')),
      group: type.group,
      resource: type.plural,
      subresource,
      namespace: namespace ?? '',
      name: name ?? '',
    });
    const dryRun = url.searchParams.get('dryRun') === 'All';
    if (subresource !== undefined) {
      const allowed =
        (subresource === 'status' && type.statusSubresource) ||
        (subresource === 'log' && type.logSubresource) ||
        (subresource === 'scale' && type.scaleSubresource);
      if (!allowed) throw new ApiFailureError(failure(404, 'the server could not find the requested resource'));
    }
    if (name === undefined) {
      if (method === 'GET') {
        let selector;
        try {
          selector = parseLabelSelector(url.searchParams.get('labelSelector') ?? '');
        } catch (error) {
          if (error instanceof SelectorError)
            throw new ApiFailureError(failure(400, `unable to parse requirement: ${error.message}`));
          throw error;
        }
        const fields = parseFieldSelector(url.searchParams.get('fieldSelector') ?? '');
        if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
          return streamWatch(store, res, {
            type,
            namespace: namespace || undefined,
            selector,
            fields,
            resourceVersion: url.searchParams.get('resourceVersion'),
            timeoutSeconds: url.searchParams.get('timeoutSeconds'),
          });
        }
        return send(res, 200, listOf(type, store.list(type, namespace || undefined, selector, fields), store.revision));
      }
      if (method === 'POST' && namespace !== undefined) {
        const body = decodeWrite(
          type,
          parseJson(await readBody(req)),
          fieldValidation(url.searchParams, 'CreateOptions'),
          res,
        );
        return send(res, 201, store.create(type, namespace, body, dryRun));
      }
      throw new ApiFailureError(failure(405, `method ${method} is not allowed on a collection`));
    }
    const ns = namespace as string;
    if (subresource === 'log') {
      if (method !== 'GET') throw new ApiFailureError(failure(405, 'method not allowed'));
      store.get(type, ns, name);
      const text = logs.get(`${ns}/${name}`) ?? '';
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    if (subresource === 'scale') return handleScale(req, res, method, type, ns, name, contentType ?? '', dryRun);
    const sub = subresource === 'status' ? 'status' : undefined;
    switch (method) {
      case 'GET':
        return send(res, 200, store.get(type, ns, name));
      case 'PUT': {
        const body = decodeWrite(
          type,
          parseJson(await readBody(req)),
          fieldValidation(url.searchParams, 'UpdateOptions'),
          res,
        );
        return send(res, 200, store.update(type, ns, name, body, sub, dryRun, !type.builtIn));
      }
      case 'PATCH': {
        const body = parseJson(await readBody(req));
        checkPatchType(type, contentType ?? '');
        const current = store.get(type, ns, name);
        const directive = fieldValidation(url.searchParams, 'PatchOptions');
        const patched = decodeWrite(type, patchObject(type, current, contentType ?? '', body), directive, res, true);
        return send(res, 200, store.update(type, ns, name, patched, sub, dryRun));
      }
      case 'DELETE': {
        const text = await readBody(req);
        const opts = deleteOptions(text.trim() === '' ? {} : parseJson(text), url.searchParams);
        const { object, deleted } = store.delete(type, ns, name, opts);
        // Gone at once: a Status (Pods return the object); still finalizing or in its grace period: the object.
        if (deleted && type.kind !== 'Pod')
          return send(res, 200, success(type.plural, type.group, name, String(object.metadata['uid'])));
        return send(res, opts.orphanDependents === false && !deleted ? 202 : 200, object);
      }
      default:
        throw new ApiFailureError(failure(405, `method ${method} is not allowed`));
    }
  }

  async function handleScale(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    type: ResourceType,
    ns: string,
    name: string,
    contentType: string,
    dryRun: boolean,
  ): Promise<void> {
    const current = store.get(type, ns, name);
    if (method === 'GET') return send(res, 200, scaleOf(current));
    if (method !== 'PUT' && method !== 'PATCH')
      throw new ApiFailureError(failure(405, `method ${method} is not allowed`));
    const body = parseJson(await readBody(req));
    const wanted = method === 'PUT' ? body : patchObject(type, scaleOf(current) as KubeObject, contentType, body);
    const updated = store.update(type, ns, name, scaleUpdate(current, wanted), undefined, dryRun);
    return send(res, 200, scaleOf(updated));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const f: ApiFailure = error instanceof ApiFailureError ? error.failure : failure(500, (error as Error).message);
      if (!res.headersSent) send(res, f.code, f.body);
      else res.destroy();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('test API server has no TCP address');
  const port = address.port;
  const url = `http://127.0.0.1:${port}`;

  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });

  function kubeConfig(namespace = 'default', token = ADMIN_TOKEN): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'pharos-test', server: url, skipTLSVerify: true }],
      users: [{ name: 'pharos-test', token }],
      contexts: [{ name: 'pharos-test', cluster: 'pharos-test', user: 'pharos-test', namespace }],
      currentContext: 'pharos-test',
    });
    return kc;
  }

  return {
    url,
    port,
    store,
    requests,
    requestCount: () => requests.length,
    resetRequests: () => {
      requests.length = 0;
    },
    unavailable: (count = Number.POSITIVE_INFINITY) => {
      failing = count;
    },
    refuseConnections: stopListening,
    recover: async () => {
      failing = 0;
      if (server.listening) return;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    },
    pauseControllers: () => controllers.pause(),
    resumeControllers: () => controllers.resume(),
    addNamespace: (name) => {
      if (store.namespacePhase(name) === 'missing') store.create(namespaceType, '', { metadata: { name } });
    },
    setPodLog: (namespace, name, text) => {
      logs.set(`${namespace}/${name}`, text);
    },
    addUser: (token, username, groups = ['system:authenticated']) => {
      users.set(token, { username, groups: [...groups] });
    },
    grant: (namespace, username, rules) => {
      const name = `grant-${username.replace(/[^a-z0-9-]/g, '-')}`.slice(0, 63);
      const type = (kind: string) => RESOURCE_TYPES.find((t) => t.kind === kind) as ResourceType;
      store.create(type('Role'), namespace, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name },
        rules: rules.map((r) => ({ ...r })),
      });
      store.create(type('RoleBinding'), namespace, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: username }],
      });
    },
    kubeConfig,
    writeKubeconfig: async (path, namespace = 'default', token = ADMIN_TOKEN) => {
      const doc = {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'pharos-test', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'pharos-test', user: { token } }],
        contexts: [{ name: 'pharos-test', context: { cluster: 'pharos-test', user: 'pharos-test', namespace } }],
        'current-context': 'pharos-test',
      };
      await writeFile(path, stringify(doc), { mode: 0o600 });
    },
    close: async () => {
      controllers.close();
      await stopListening();
    },
  };
}
