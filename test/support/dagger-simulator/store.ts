// Object ids and the simulator's scratch folders: Dagger's ids are opaque strings, so are these.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GraphQLError } from 'graphql';

/** Who sent a query: the test's own process, or one function call's runtime container (its own token). */
export interface Client {
  /** Where a path of the client's file system is on this machine. */
  hostPath(path: string): string;
  /** The function call this client runs, when it is a runtime container. */
  readonly call?: unknown;
}

export class Store {
  readonly #objects = new Map<string, { kind: string; value: unknown }>();
  /** Image ids and tags the simulator made, in order, removed newest first on stop. */
  readonly images = new Set<string>();
  /** Containers of runs no step has committed yet, removed on stop. */
  readonly containers = new Set<string>();
  #next = 0;

  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  static async create(): Promise<Store> {
    return new Store(await mkdtemp(join(tmpdir(), 'pharos-dagger-sim-')));
  }

  register(kind: string, value: unknown): string {
    this.#next += 1;
    const id = `sim:${kind}:${this.#next}`;
    this.#objects.set(id, { kind, value });
    return id;
  }

  load<T>(kind: string, id: string): T {
    const found = this.#objects.get(id);
    if (found === undefined || found.kind !== kind)
      throw new GraphQLError(`cannot load ${kind} from id "${id}": no such object in this session`);
    return found.value as T;
  }

  async folder(): Promise<string> {
    return mkdtemp(join(this.root, 'd-'));
  }

  async dispose(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}
