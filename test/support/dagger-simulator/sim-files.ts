// Directory, File and Secret over folders of the simulator's own: each change copies, as Dagger's snapshots never mutate.
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { exec } from '../../../scripts/lib/ports/exec.ts';
import { basename, dirname, isAbsolute, join, normalize, resolve } from 'node:path';
import { GraphQLError } from 'graphql';
import type { Client, Store } from './store.ts';
import type { SimContainer } from './sim-container.ts';

/** `cp -a` copies a tree several times faster than a per-file copy in JavaScript; the engine's snapshot copies are cheap too. */
export async function copyTree(from: string, to: string): Promise<void> {
  const copied = await exec('cp', ['-a', '--reflink=auto', `${from}/.`, to]);
  if (copied.code !== 0) throw new GraphQLError(`cannot copy "${from}": ${copied.stderr.trim()}`);
}

/** A path inside a directory; `..` out of it is refused as Dagger refuses it. */
function inside(root: string, path: string): string {
  const joined = normalize(join(root, path));
  if (joined !== root && !joined.startsWith(`${root}/`)) throw new GraphQLError(`path "${path}" escapes the directory`);
  return joined;
}

export class SimSecret {
  readonly id: string;
  readonly secretName: string;
  readonly value: string;
  constructor(store: Store, secretName: string, value: string) {
    this.secretName = secretName;
    this.value = value;
    this.id = store.register('Secret', this);
  }
  name(): string {
    return this.secretName;
  }
  plaintext(): string {
    return this.value;
  }
}

export class SimFile {
  readonly id: string;
  readonly path: string;
  constructor(store: Store, path: string) {
    this.path = path;
    this.id = store.register('File', this);
  }
  name(): string {
    return basename(this.path);
  }
  async contents(): Promise<string> {
    return readFile(this.path, 'utf8');
  }
  async export(args: { path: string }, client?: Client): Promise<string> {
    const target = client === undefined ? resolve(args.path) : client.hostPath(args.path);
    await mkdir(dirname(target), { recursive: true });
    await cp(this.path, target);
    return target;
  }
}

export interface BuildRequest {
  readonly dockerfile?: string | null;
  readonly platform?: string | null;
  readonly buildArgs?: readonly { name: string; value: string }[] | null;
  readonly target?: string | null;
  readonly secrets?: readonly string[] | null;
}

export class SimDirectory {
  readonly id: string;
  readonly store: Store;
  readonly path: string;
  /** Makes the container a `dockerBuild` of this directory stands for (the container module owns building). */
  readonly containers: (dir: SimDirectory, build: BuildRequest) => SimContainer;
  constructor(store: Store, path: string, containers: (dir: SimDirectory, build: BuildRequest) => SimContainer) {
    this.store = store;
    this.path = path;
    this.containers = containers;
    this.id = store.register('Directory', this);
  }

  async #copy(): Promise<string> {
    const dir = await this.store.folder();
    await copyTree(this.path, dir);
    return dir;
  }

  async entries(args: { path?: string | null }): Promise<string[]> {
    const names = await readdir(inside(this.path, args.path ?? '.'), { withFileTypes: true });
    return names.map((d) => (d.isDirectory() ? `${d.name}/` : d.name)).sort();
  }

  async directory(args: { path: string }): Promise<SimDirectory> {
    const path = inside(this.path, args.path);
    if (!(await stat(path).catch(() => undefined))?.isDirectory())
      throw new GraphQLError(`directory "${args.path}" not found`);
    return new SimDirectory(this.store, path, this.containers);
  }

  async file(args: { path: string }): Promise<SimFile> {
    const path = inside(this.path, args.path);
    if (!(await stat(path).catch(() => undefined))?.isFile()) throw new GraphQLError(`file "${args.path}" not found`);
    return new SimFile(this.store, path);
  }

  async withNewFile(args: { path: string; contents: string; permissions?: number | null }): Promise<SimDirectory> {
    const dir = await this.#copy();
    const path = inside(dir, args.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, args.contents, { mode: args.permissions ?? 0o644 });
    return new SimDirectory(this.store, dir, this.containers);
  }

  async withFile(args: { path: string; source: string; permissions?: number | null }): Promise<SimDirectory> {
    const file = this.store.load<SimFile>('File', args.source);
    const dir = await this.#copy();
    const path = inside(dir, args.path);
    await mkdir(dirname(path), { recursive: true });
    await cp(file.path, path);
    return new SimDirectory(this.store, dir, this.containers);
  }

  async export(args: { path: string; wipe?: boolean | null }, client?: Client): Promise<string> {
    if (!isAbsolute(args.path) && args.path.includes('..'))
      throw new GraphQLError(`export path "${args.path}" escapes the working folder`);
    const target = client === undefined ? resolve(args.path) : client.hostPath(args.path);
    if (args.wipe === true) await rm(target, { recursive: true, force: true });
    await mkdir(target, { recursive: true });
    await copyTree(this.path, target);
    return target;
  }

  dockerBuild(args: BuildRequest): SimContainer {
    return this.containers(this, args);
  }
}
