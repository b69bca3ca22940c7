// What a module's runtime asks the engine (dagger/dagger@00c993cbe47ba494262871052b9ab4a547989b1d:
// sdk/typescript/src/module/entrypoint/entrypoint.ts and register.ts): the current call, its arguments, the
// answer or error, and on the first run the module's type definitions built as id chains.
import { GraphQLError } from 'graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { Store } from './store.ts';

/** One step of a builder chain (`typeDef { withObject(name:…) { withFunction(…) } }`), as sent. */
export interface Step {
  readonly field: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** Module, TypeDef, Function, SourceMap, Error: immutable step lists; `id` registers one. */
export class Builder {
  readonly kind: string;
  readonly steps: readonly Step[];
  readonly #store: Store;
  constructor(store: Store, kind: string, steps: readonly Step[]) {
    this.#store = store;
    this.kind = kind;
    this.steps = steps;
  }
  resolve(field: string, args: Record<string, unknown>, info: GraphQLResolveInfo): unknown {
    if (field === 'id') return this.#store.register(this.kind, this);
    if (field === 'message' && this.kind === 'Error') return this.steps[0]?.args['message'];
    const kind = String(info.returnType).replace(/!$/, '');
    return new Builder(this.#store, kind, [...this.steps, { field, args }]);
  }
}

export interface RegisteredFunction {
  readonly name: string;
  readonly cache: { readonly policy: 'Default' | 'Never' | 'PerSession'; readonly ttl?: string };
  readonly check: boolean;
  readonly args: readonly { readonly name: string; readonly defaultPath?: string }[];
}

/** The functions of the module's main object, read back from the Module id its runtime returned. */
export function registeredFunctions(store: Store, moduleId: string, objectName: string): RegisteredFunction[] {
  const mod = store.load<Builder>('Module', moduleId);
  for (const step of mod.steps.filter((s) => s.field === 'withObject')) {
    const typeDef = store.load<Builder>('TypeDef', String(step.args['object']));
    if (typeDef.steps.find((s) => s.field === 'withObject')?.args['name'] !== objectName) continue;
    return typeDef.steps
      .filter((s) => s.field === 'withFunction')
      .map((s) => {
        const fn = store.load<Builder>('Function', String(s.args['function']));
        const policy = fn.steps.findLast((f) => f.field === 'withCachePolicy')?.args;
        return {
          name: String(fn.steps[0]?.args['name']),
          cache: {
            policy: (policy?.['policy'] ?? 'Default') as RegisteredFunction['cache']['policy'],
            ...(typeof policy?.['timeToLive'] === 'string' ? { ttl: policy['timeToLive'] } : {}),
          },
          check: fn.steps.some((f) => f.field === 'withCheck'),
          args: fn.steps
            .filter((f) => f.field === 'withArg')
            .map((f) => ({
              name: String(f.args['name']),
              ...(typeof f.args['defaultPath'] === 'string' ? { defaultPath: f.args['defaultPath'] } : {}),
            })),
        };
      });
  }
  throw new GraphQLError(`the module registered no object named ${objectName}`);
}

/** The call a runtime container was started for, and what it answered. */
export class FunctionCallState {
  readonly name: string;
  readonly parentName: string;
  readonly args: Readonly<Record<string, unknown>>;
  answer: { readonly value: unknown } | { readonly error: string } | undefined;
  readonly #store: Store;
  constructor(store: Store, parentName: string, name: string, args: Readonly<Record<string, unknown>>) {
    this.#store = store;
    this.parentName = parentName;
    this.name = name;
    this.args = args;
  }
  parent(): unknown {
    return '{}';
  }
  inputArgs(): { id: string; name: string; value: string }[] {
    return Object.entries(this.args).map(([name, value]) => {
      const arg = { id: '', name, value: JSON.stringify(value) };
      arg.id = this.#store.register('FunctionCallArgValue', arg);
      return arg;
    });
  }
  returnValue(args: { value: unknown }): null {
    this.answer = { value: typeof args.value === 'string' ? JSON.parse(args.value) : args.value };
    return null;
  }
  returnError(args: { error: string }): null {
    const error = this.#store.load<Builder>('Error', args.error);
    this.answer = { error: String(error.steps[0]?.args['message']) };
    return null;
  }
}
