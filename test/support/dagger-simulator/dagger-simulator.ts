// Dagger engine SIMULATOR (no Dagger engine runs here): an HTTP GraphQL server that answers the real
// @dagger.io/dagger SDK the way a running session does (POST /query, the session token as Basic user name),
// serving the subset of Dagger's core API the module uses over the REAL Docker Engine and the REAL registry.
// What is simulated and how faithfully: docs/dagger.md, "The engine simulator".
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { GraphQLError, buildSchema, defaultFieldResolver, graphql } from 'graphql';
import type { GraphQLFieldResolver, GraphQLUnionType } from 'graphql';
import { docker } from './docker-cli.ts';
import { SCHEMA } from './schema.ts';
import { SimContainer } from './sim-container.ts';
import { SimDirectory, SimFile, SimSecret } from './sim-files.ts';
import type { BuildRequest } from './sim-files.ts';
import { Store } from './store.ts';
import type { Client } from './store.ts';
import { Builder, FunctionCallState } from './module-api.ts';

export interface DaggerSimulator {
  /** DAGGER_SESSION_PORT and DAGGER_SESSION_TOKEN for the SDK. */
  readonly env: { readonly DAGGER_SESSION_PORT: string; readonly DAGGER_SESSION_TOKEN: string };
  /** Every query text the SDK sent, in order. */
  readonly queries: readonly string[];
  readonly store: Store;
  /** A session token for another client (a function's runtime container): its paths and its call. */
  addClient(client: Client): string;
  removeClient(token: string): void;
  stop(): Promise<void>;
}

const schema = buildSchema(SCHEMA);
// The SDK loads objects by `node(id:) { ... on Kind }`; an id names its kind (store.ts).
(schema.getType('Node') as GraphQLUnionType).resolveType = (value) =>
  value instanceof SimContainer
    ? 'Container'
    : value instanceof SimDirectory
      ? 'Directory'
      : value instanceof SimFile
        ? 'File'
        : value instanceof SimSecret
          ? 'Secret'
          : value instanceof Builder
            ? value.kind
            : 'FunctionCallArgValue';

/** Builder chains answer every field themselves; the rest are plain objects and methods. */
const fieldResolver: GraphQLFieldResolver<unknown, Client> = (source, args, client, info) =>
  source instanceof Builder
    ? source.resolve(info.fieldName, args, info)
    : defaultFieldResolver(source, args, client, info);

function rootValue(store: Store): Record<string, unknown> {
  const containers = (dir: SimDirectory, request: BuildRequest) => SimContainer.build(store, dir, request);
  return {
    container: () => new SimContainer(store, undefined, { kind: 'scratch' }),
    directory: async () => new SimDirectory(store, await store.folder(), containers),
    // The host's folder is read when a query uses it, not snapshotted at the call (docs/dagger.md).
    host: () => ({
      directory: (args: { path: string }) => new SimDirectory(store, resolve(args.path), containers),
      file: (args: { path: string }) => new SimFile(store, resolve(args.path)),
    }),
    setSecret: (args: { name: string; plaintext: string }) => new SimSecret(store, args.name, args.plaintext),
    loadContainerFromID: (args: { id: string }) => store.load('Container', args.id),
    loadDirectoryFromID: (args: { id: string }) => store.load('Directory', args.id),
    loadFileFromID: (args: { id: string }) => store.load('File', args.id),
    loadSecretFromID: (args: { id: string }) => store.load('Secret', args.id),
    version: () => 'v0.21.9-simulator',
    currentFunctionCall: (_: unknown, client: Client) => {
      if (!(client.call instanceof FunctionCallState))
        throw new GraphQLError('currentFunctionCall: this client is not a function call');
      return client.call;
    },
    currentModule: () => ({ name: 'pharos' }),
    error: (args: { message: string }) => new Builder(store, 'Error', [{ field: 'error', args }]),
    module: () => new Builder(store, 'Module', []),
    typeDef: () => new Builder(store, 'TypeDef', []),
    function: (args: Record<string, unknown>) => new Builder(store, 'Function', [{ field: 'function', args }]),
    sourceMap: (args: Record<string, unknown>) => new Builder(store, 'SourceMap', [{ field: 'sourceMap', args }]),
    node: (args: { id: string }) => store.load(/^sim:([A-Za-z]+):/.exec(args.id)?.[1] ?? '', args.id),
    loadErrorFromID: (args: { id: string }) => store.load('Error', args.id),
    loadFunctionCallArgValueFromID: (args: { id: string }) => store.load('FunctionCallArgValue', args.id),
  };
}

export async function startDaggerSimulator(): Promise<DaggerSimulator> {
  const store = await Store.create();
  const root = rootValue(store);
  const clients = new Map<string, Client>();
  const addClient = (client: Client) => {
    const token = randomBytes(16).toString('hex');
    clients.set(`Basic ${Buffer.from(`${token}:`).toString('base64')}`, client);
    return token;
  };
  const token = addClient({ hostPath: (path) => resolve(path) });
  const queries: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url !== '/query')
        return reply(404, { errors: [{ message: `no route ${req.method} ${req.url}` }] });
      const client = clients.get(req.headers.authorization ?? '');
      if (client === undefined) return reply(401, { errors: [{ message: 'session token does not match' }] });
      let body: { query?: unknown; variables?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        return reply(400, { errors: [{ message: 'request body is not JSON' }] });
      }
      if (typeof body.query !== 'string') return reply(400, { errors: [{ message: 'request has no "query" string' }] });
      queries.push(body.query);
      const variableValues = (body.variables ?? undefined) as Record<string, unknown> | undefined;
      graphql({
        schema,
        source: body.query,
        rootValue: root,
        variableValues,
        contextValue: client,
        fieldResolver,
      }).then(
        (result) => reply(200, result),
        (error: Error) => reply(500, { errors: [{ message: error.message }] }),
      );
    });
  });
  // A module's runtime keeps its connection idle while the SDK introspects the module: never close it under it.
  server.keepAliveTimeout = 0;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    env: { DAGGER_SESSION_PORT: String(port), DAGGER_SESSION_TOKEN: token },
    queries,
    store,
    addClient,
    removeClient(token) {
      clients.delete(`Basic ${Buffer.from(`${token}:`).toString('base64')}`);
    },
    async stop() {
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
      for (const cid of store.containers) await docker(['rm', '-f', cid]);
      for (const image of [...store.images].reverse()) await docker(['rmi', '--no-prune', image]);
      await store.dispose();
    },
  };
}
