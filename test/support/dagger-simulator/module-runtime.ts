// `dagger call` against the simulator: the module runs in its runtime container (runtime-layout.ts), first to
// register its functions (the SDK's entrypoint with parentName "": register.ts), then once per call that the
// engine's function cache does not answer. Cache policy as dagger/dagger@00c993cbe47ba494262871052b9ab4a547989b1d
// sdk/typescript/src/module/entrypoint/register.ts sends it (withCachePolicy Never / PerSession / Default + TTL):
// "Never" runs every call; any other policy answers a repeated call with the same arguments from the cache
// (this simulator is one session, so PerSession and a TTL longer than the test behave alike).
import { join, resolve } from 'node:path';
import { exec } from '../../../scripts/lib/ports/exec.ts';
import type { DaggerSimulator } from './dagger-simulator.ts';
import { FunctionCallState, registeredFunctions } from './module-api.ts';
import type { RegisteredFunction } from './module-api.ts';
import { REPO, SDK_BUNDLE, layOutModule } from './runtime-layout.ts';
import type { RuntimeLayout } from './runtime-layout.ts';
import { SimDirectory, SimFile, SimSecret } from './sim-files.ts';
import { SimContainer } from './sim-container.ts';

const OBJECT = 'Pharos';

export class FunctionError extends Error {}

export interface ModuleRuntime {
  readonly layout: RuntimeLayout;
  readonly functions: readonly RegisteredFunction[];
  /** How many times a runtime container ran a function (registration not counted). */
  readonly runs: number;
  /** Calls `name` (the module's camelCase name) with argument values as the engine passes them (ids for objects). */
  call(name: string, args?: Record<string, unknown>): Promise<unknown>;
  /** Ids of argument values, as `dagger call --source=DIR --built=FILE --key=env:NAME` uploads them. */
  directory(path: string): string;
  file(path: string): string;
  secret(name: string, plaintext: string): string;
}

const camel = (kebab: string) => kebab.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** `context` is the module's context directory (the repository holding it): a contextual argument's default. */
export async function loadModule(sim: DaggerSimulator, context: string = REPO): Promise<ModuleRuntime> {
  const layout = await layOutModule(await sim.store.folder());
  const run = async (call: FunctionCallState): Promise<unknown> => {
    // Each call's container has its own /tmp, as each function call's runtime container has in the engine: calls that
    // run at once would otherwise share tsx's IPC pipe (/tmp/tsx-<uid>/<pid>.pipe, and every container's pid is 1).
    const tmp = await sim.store.folder();
    const token = sim.addClient({
      call,
      hostPath: (path) => {
        if (!path.startsWith('/tmp/')) throw new Error(`the simulator lets a function export only under /tmp: ${path}`);
        return join(tmp, path.slice('/tmp/'.length));
      },
    });
    const dir = `/src/${layout.source}`;
    try {
      const ran = await exec(
        'docker',
        [
          'run',
          '--rm',
          '--network',
          'host',
          '--entrypoint',
          '/usr/local/bin/node',
          '--env',
          `DAGGER_SESSION_PORT=${sim.env.DAGGER_SESSION_PORT}`,
          '--env',
          `DAGGER_SESSION_TOKEN=${token}`,
          '--env',
          'NODE_OPTIONS=--use-openssl-ca',
          '--volume',
          `${layout.src}:/src`,
          '--volume',
          `${layout.nodeModules}:${dir}/node_modules:ro`,
          '--volume',
          `${join(REPO, 'dagger/node_modules')}:${SDK_BUNDLE}:ro`,
          '--volume',
          `${tmp}:/tmp`,
          '--workdir',
          dir,
          layout.image,
          `${SDK_BUNDLE}/tsx/dist/cli.mjs`,
          '--no-deprecation',
          '--tsconfig',
          `${dir}/tsconfig.json`,
          `${dir}/src/__dagger.entrypoint.ts`,
        ],
        { timeoutMs: 300_000 },
      );
      const answer = call.answer;
      if (answer === undefined)
        throw new FunctionError(
          `the module's runtime exited ${ran.code} without answering ${call.name || 'registration'}:\n${ran.stderr}${ran.stdout.toString('utf8')}`,
        );
      if ('error' in answer) throw new FunctionError(answer.error);
      return answer.value;
    } finally {
      sim.removeClient(token);
    }
  };
  const moduleId = await run(new FunctionCallState(sim.store, '', '', {}));
  const functions = registeredFunctions(sim.store, String(moduleId), OBJECT);
  const cache = new Map<string, Promise<unknown>>();
  let runs = 0;
  const directory = (path: string) =>
    new SimDirectory(sim.store, resolve(path), (d, r) => SimContainer.build(sim.store, d, r)).id;
  return {
    layout,
    functions,
    directory,
    file: (path) => new SimFile(sim.store, resolve(path)).id,
    secret: (name, plaintext) => new SimSecret(sim.store, name, plaintext).id,
    get runs() {
      return runs;
    },
    async call(name, args = {}) {
      const fn = functions.find((f) => f.name === camel(name) || f.name === name);
      if (fn === undefined) throw new FunctionError(`module pharos has no function ${name}`);
      const given = { ...args };
      // A contextual argument (@argument({ defaultPath })) the caller left out is the module's context directory.
      for (const arg of fn.args)
        if (arg.defaultPath !== undefined && given[arg.name] === undefined)
          given[arg.name] = directory(join(context, arg.defaultPath));
      const key = `${fn.name}(${JSON.stringify(given)})`;
      const cached = fn.cache.policy === 'Never' ? undefined : cache.get(key);
      if (cached !== undefined) return cached;
      runs += 1;
      const result = run(new FunctionCallState(sim.store, OBJECT, fn.name, given));
      if (fn.cache.policy !== 'Never') cache.set(key, result);
      result.catch(() => cache.delete(key)); // the engine keeps no failed result
      return result;
    },
  };
}
