// Container over the real Docker Engine: each call returns a new immutable container; the image is made lazily,
// once, when a leaf field (stdout, label, publish, sync) needs it, as Dagger evaluates a chain.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { GraphQLError } from 'graphql';
import { docker, dockerOk, imageConfig } from './docker-cli.ts';
import type { Store } from './store.ts';
import { SimDirectory, SimFile, copyTree } from './sim-files.ts';
import type { BuildRequest, SimSecret } from './sim-files.ts';

type Op =
  | { readonly kind: 'scratch' }
  | { readonly kind: 'from'; readonly address: string }
  | { readonly kind: 'build'; readonly dir: SimDirectory; readonly request: BuildRequest }
  | { readonly kind: 'config'; readonly line: string }
  | { readonly kind: 'copy'; readonly path: string; readonly dir: SimDirectory }
  | { readonly kind: 'exec'; readonly exec: ExecRequest }
  | { readonly kind: 'runtime' };

interface Runtime {
  readonly mounts: readonly { readonly path: string; readonly dir: SimDirectory }[];
  readonly secrets: readonly { readonly name: string; readonly secret: SimSecret }[];
  readonly auths: readonly { readonly address: string; readonly username: string; readonly secret: SimSecret }[];
  /** Set by withWorkdir; else commands run in the image's own WORKDIR. */
  readonly workdir: string | undefined;
}

interface ExecRequest {
  readonly args: readonly string[];
  readonly stdin?: string | null;
  /** Stdout lands in this file of the container, byte for byte (the simulator keeps it beside the image). */
  readonly redirectStdout?: string | null;
  readonly expect?: 'ANY' | 'FAILURE' | 'SUCCESS' | null;
}

interface Made {
  /** The image, made on first ask: an exec is committed only when a later step or field needs its file system. */
  readonly image: () => Promise<string>;
  readonly stdout?: string;
  readonly stderr?: string;
  readonly exitCode?: number;
  /** Container path -> host file holding what a redirect wrote there. */
  readonly redirected?: ReadonlyMap<string, string>;
}

const ready = (image: string) => () => Promise.resolve(image);

const EMPTY: Runtime = { mounts: [], secrets: [], auths: [], workdir: undefined };

/** Dagger's EXEC_ERROR: the SDK turns it into its ExecError with these fields. */
function execError(args: readonly string[], exitCode: number, stdout: string, stderr: string): GraphQLError {
  return new GraphQLError(`process "${args.join(' ')}" did not complete successfully: exit code: ${exitCode}`, {
    extensions: { _type: 'EXEC_ERROR', cmd: args, exitCode, stdout, stderr },
  });
}

/** A Dockerfile word list in JSON form, or the empty form that clears it. */
const jsonForm = (words: readonly string[] | null): string => JSON.stringify(words ?? []);

export class SimContainer {
  readonly id: string;
  readonly store: Store;
  readonly parent: SimContainer | undefined;
  readonly op: Op;
  readonly runtime: Runtime;
  #made: Promise<Made> | undefined;

  constructor(store: Store, parent: SimContainer | undefined, op: Op, runtime: Runtime = parent?.runtime ?? EMPTY) {
    this.store = store;
    this.parent = parent;
    this.op = op;
    this.runtime = runtime;
    this.id = store.register('Container', this);
  }

  static build(store: Store, dir: SimDirectory, request: BuildRequest): SimContainer {
    return new SimContainer(store, undefined, { kind: 'build', dir, request });
  }

  #then(op: Op, runtime?: Runtime): SimContainer {
    return new SimContainer(this.store, this, op, runtime);
  }

  from(args: { address: string }): SimContainer {
    return new SimContainer(this.store, undefined, { kind: 'from', address: args.address }, this.runtime);
  }
  withLabel(args: { name: string; value: string }): SimContainer {
    return this.#then({ kind: 'config', line: `LABEL ${JSON.stringify(args.name)}=${JSON.stringify(args.value)}` });
  }
  withEnvVariable(args: { name: string; value: string }): SimContainer {
    return this.#then({ kind: 'config', line: `ENV ${args.name}=${JSON.stringify(args.value)}` });
  }
  withWorkdir(args: { path: string }): SimContainer {
    const workdir = posix.resolve(this.runtime.workdir ?? '/', args.path);
    return this.#then({ kind: 'config', line: `WORKDIR ${workdir}` }, { ...this.runtime, workdir });
  }
  withSecretVariable(args: { name: string; secret: string }): SimContainer {
    const secret = this.store.load<SimSecret>('Secret', args.secret);
    return this.#then(
      { kind: 'runtime' },
      {
        ...this.runtime,
        secrets: [...this.runtime.secrets.filter((s) => s.name !== args.name), { name: args.name, secret }],
      },
    );
  }
  withRegistryAuth(args: { address: string; username: string; secret: string }): SimContainer {
    const secret = this.store.load<SimSecret>('Secret', args.secret);
    return this.#then(
      { kind: 'runtime' },
      { ...this.runtime, auths: [...this.runtime.auths, { address: args.address, username: args.username, secret }] },
    );
  }
  withDirectory(args: { path: string; source: string }): SimContainer {
    return this.#then({
      kind: 'copy',
      path: posix.resolve(this.runtime.workdir ?? '/', args.path),
      dir: this.store.load<SimDirectory>('Directory', args.source),
    });
  }
  withMountedDirectory(args: { path: string; source: string }): SimContainer {
    const dir = this.store.load<SimDirectory>('Directory', args.source);
    const path = posix.resolve(this.runtime.workdir ?? '/', args.path);
    return this.#then(
      { kind: 'runtime' },
      { ...this.runtime, mounts: [...this.runtime.mounts.filter((m) => m.path !== path), { path, dir }] },
    );
  }
  withExec(args: ExecRequest): SimContainer {
    if (args.args.length === 0) throw new GraphQLError('withExec: args must name a command');
    const redirectStdout =
      args.redirectStdout === undefined || args.redirectStdout === null
        ? null
        : posix.resolve(this.runtime.workdir ?? '/', args.redirectStdout);
    return this.#then({ kind: 'exec', exec: { ...args, redirectStdout } });
  }
  async exitCode(): Promise<number> {
    const made = await this.#make();
    if (made.exitCode === undefined) throw new GraphQLError('no command has been set: exitCode needs a withExec');
    return made.exitCode;
  }

  async stdout(): Promise<string> {
    const made = await this.#make();
    if (made.stdout === undefined) throw new GraphQLError('no command has been set: stdout needs a withExec');
    return made.stdout;
  }
  async stderr(): Promise<string> {
    const made = await this.#make();
    if (made.stderr === undefined) throw new GraphQLError('no command has been set: stderr needs a withExec');
    return made.stderr;
  }
  async label(args: { name: string }): Promise<string | null> {
    return (await imageConfig(await (await this.#make()).image())).Labels?.[args.name] ?? null;
  }
  async envVariable(args: { name: string }): Promise<string | null> {
    const line = (await imageConfig(await (await this.#make()).image())).Env?.find((e) =>
      e.startsWith(`${args.name}=`),
    );
    return line === undefined ? null : line.slice(args.name.length + 1);
  }
  async sync(): Promise<string> {
    await this.#make();
    return this.id;
  }
  async file(args: { path: string }): Promise<SimFile> {
    const redirected = (await this.#make()).redirected?.get(posix.resolve(this.runtime.workdir ?? '/', args.path));
    if (redirected !== undefined) return new SimFile(this.store, redirected);
    return new SimFile(this.store, await this.#extract(args.path));
  }
  async directory(args: { path: string }): Promise<SimDirectory> {
    return new SimDirectory(this.store, await this.#extract(args.path), (dir, request) =>
      SimContainer.build(this.store, dir, request),
    );
  }

  /** `docker push` with this container's registry credentials; Dagger answers `<address>@sha256:…`. */
  async publish(args: { address: string }): Promise<string> {
    const image = await (await this.#make()).image();
    await dockerOk(['tag', image, args.address]);
    this.store.images.add(args.address);
    const env: Record<string, string> = {};
    if (this.runtime.auths.length > 0) {
      const config = await this.store.folder();
      const auths = Object.fromEntries(
        this.runtime.auths.map((a) => [
          a.address,
          { auth: Buffer.from(`${a.username}:${a.secret.value}`).toString('base64') },
        ]),
      );
      await writeFile(join(config, 'config.json'), JSON.stringify({ auths }), { mode: 0o600 });
      env['DOCKER_CONFIG'] = config;
    }
    const pushed = await docker(['push', args.address], { env, timeoutMs: 120_000 });
    const out = pushed.stdout.toString('utf8');
    const digest = /digest: (sha256:[0-9a-f]{64})/.exec(out)?.[1];
    if (pushed.code !== 0 || digest === undefined)
      throw new GraphQLError(
        `failed to export: failed to push ${args.address}: ${(pushed.stderr.trim() || out.trim()).split('\n').pop() ?? ''}`,
      );
    return `${args.address}@${digest}`;
  }

  #make(): Promise<Made> {
    this.#made ??= this.#evaluate();
    return this.#made;
  }

  async #evaluate(): Promise<Made> {
    const op = this.op;
    switch (op.kind) {
      case 'scratch':
        throw new GraphQLError('container has no image: call from() or Directory.dockerBuild() first');
      case 'from':
        return { image: ready(await this.#pullable(op.address)) };
      case 'build':
        return { image: ready(await this.#dockerBuild(op.dir, op.request)) };
      case 'runtime':
        return { image: (await this.#parentMade()).image };
      case 'config':
        return { image: ready(await this.#configure()) };
      case 'copy':
        return { image: ready(await this.#copy(op.path, op.dir)) };
      case 'exec':
        return this.#exec(op.exec);
    }
  }

  async #parentMade(): Promise<Made> {
    if (this.parent === undefined)
      throw new GraphQLError('container has no image: call from() or Directory.dockerBuild() first');
    return this.parent.#make();
  }

  #track(image: string): string {
    this.store.images.add(image);
    return image;
  }

  async #pullable(address: string): Promise<string> {
    const local = await docker(['image', 'inspect', '--format', '{{.Id}}', address]);
    if (local.code === 0) return local.stdout.toString('utf8').trim();
    await dockerOk(['pull', '--quiet', address], { timeoutMs: 120_000 }).catch((error: Error) => {
      throw new GraphQLError(`failed to resolve source metadata for ${address}: ${error.message}`);
    });
    return dockerOk(['image', 'inspect', '--format', '{{.Id}}', address]);
  }

  async #dockerBuild(dir: SimDirectory, request: BuildRequest, labels: readonly string[] = []): Promise<string> {
    const iid = join(await this.store.folder(), 'iid');
    const args = [
      'build',
      '--quiet',
      '--force-rm',
      '--iidfile',
      iid,
      '-f',
      join(dir.path, request.dockerfile ?? 'Dockerfile'),
    ];
    for (const label of labels) args.push('--label', label);
    if (request.target) args.push('--target', request.target);
    if (request.platform) args.push('--platform', request.platform);
    for (const arg of request.buildArgs ?? []) args.push('--build-arg', `${arg.name}=${arg.value}`);
    args.push(dir.path);
    const built = await docker(args, { timeoutMs: 300_000 });
    if (built.code !== 0) throw execError(['docker', ...args], built.code, built.stdout.toString('utf8'), built.stderr);
    return this.#track((await readFile(iid, 'utf8')).trim());
  }

  /** Consecutive label/env/workdir steps become one `FROM <image>` build of config lines: no layer, no run. */
  async #configure(): Promise<string> {
    const lines: string[] = [];
    let at: SimContainer | undefined = this;
    while (at !== undefined && (at.op.kind === 'config' || at.op.kind === 'runtime')) {
      if (at.op.kind === 'config') lines.unshift(at.op.line);
      at = at.parent;
    }
    if (at === undefined)
      throw new GraphQLError('container has no image: call from() or Directory.dockerBuild() first');
    const labels = lines.map((line) => /^LABEL ("(?:[^"\\]|\\.)*")=("(?:[^"\\]|\\.)*")$/.exec(line));
    if (at.op.kind === 'build' && labels.every((m) => m !== null)) {
      // Labels straight after a build are image config: one build carries them, as one BuildKit solve would.
      return this.#dockerBuild(
        at.op.dir,
        at.op.request,
        labels.map((m) => `${JSON.parse(m?.[1] ?? '""')}=${JSON.parse(m?.[2] ?? '""')}`),
      );
    }
    const base = await (await at.#make()).image();
    const iid = join(await this.store.folder(), 'iid');
    await dockerOk(['build', '--quiet', '--force-rm', '--iidfile', iid, '-'], {
      input: `FROM ${base}\n${lines.join('\n')}\n`,
    });
    return this.#track((await readFile(iid, 'utf8')).trim());
  }

  async #copy(path: string, dir: SimDirectory): Promise<string> {
    const base = await (await this.#parentMade()).image();
    const cid = await dockerOk(['create', base, 'true']);
    try {
      await dockerOk(['cp', `${dir.path}/.`, `${cid}:${path}`]);
      const config = await imageConfig(base);
      return this.#track(await dockerOk(['commit', '--change', `CMD ${jsonForm(config.Cmd)}`, cid]));
    } finally {
      await docker(['rm', '-f', cid]);
    }
  }

  async #exec(request: ExecRequest): Promise<Made> {
    const { args } = request;
    const parent = await this.#parentMade();
    const base = await parent.image();
    const stdin = request.stdin ?? undefined;
    const run = [
      'create',
      ...(stdin === undefined ? [] : ['--interactive']),
      '--entrypoint',
      args[0] ?? '',
      ...(this.runtime.workdir === undefined ? [] : ['--workdir', this.runtime.workdir]),
    ];
    const env: Record<string, string> = {};
    for (const { name, secret } of this.runtime.secrets) {
      run.push('--env', name); // the value travels in the CLI's environment, never on its command line
      env[name] = secret.value;
    }
    for (const mount of this.runtime.mounts) {
      const copy = await this.store.folder(); // a mount is copy-on-write: the source directory never changes
      await copyTree(mount.dir.path, copy);
      run.push('--volume', `${copy}:${mount.path}`);
    }
    run.push(base, ...args.slice(1));
    const cid = await dockerOk(run, { env });
    this.store.containers.add(cid);
    // `start --attach` answers the exit status and keeps stdout (bytes) and stderr apart: no inspect, no logs.
    const started = await docker(
      ['start', '--attach', ...(stdin === undefined ? [] : ['--interactive']), cid],
      stdin === undefined ? { timeoutMs: 300_000 } : { timeoutMs: 300_000, input: stdin },
    );
    const code = started.code;
    const stdout = started.stdout.toString('utf8');
    const stderr = started.stderr;
    const expect = request.expect ?? 'SUCCESS';
    if ((expect === 'SUCCESS' && code !== 0) || (expect === 'FAILURE' && code === 0)) {
      await docker(['rm', '-f', cid]);
      this.store.containers.delete(cid);
      throw execError(args, code, stdout, stderr);
    }
    const redirected = new Map(parent.redirected ?? []);
    if (request.redirectStdout !== undefined && request.redirectStdout !== null) {
      const kept = join(await this.store.folder(), 'stdout');
      await writeFile(kept, started.stdout);
      redirected.set(request.redirectStdout, kept);
    }
    let committed: Promise<string> | undefined;
    const image = () =>
      (committed ??= (async () => {
        const config = await imageConfig(base);
        const id = await dockerOk([
          'commit',
          '--change',
          `ENTRYPOINT ${jsonForm(config.Entrypoint)}`,
          '--change',
          `CMD ${jsonForm(config.Cmd)}`,
          cid,
        ]);
        await docker(['rm', '-f', cid]);
        this.store.containers.delete(cid);
        return this.#track(id);
      })());
    return { image, stdout: request.redirectStdout ? '' : stdout, stderr, exitCode: code, redirected };
  }

  /** Copies a path out of the container's file system into a simulator folder. */
  async #extract(path: string): Promise<string> {
    const image = await (await this.#make()).image();
    const cid = await dockerOk(['create', image, 'true']);
    try {
      const dir = await this.store.folder();
      await mkdir(dir, { recursive: true });
      const target = join(dir, posix.basename(path) || 'root');
      await dockerOk(['cp', `${cid}:${posix.resolve(this.runtime.workdir ?? '/', path)}`, target]);
      return target;
    } finally {
      await docker(['rm', '-f', cid]);
    }
  }
}
