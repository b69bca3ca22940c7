/**
 * A value built on first use and kept: `lazySchema(() => z.object(...))` reads like the schema itself (`.safeParse`,
 * `.shape`, `z.output<typeof …>`, nesting in other schemas), but zod builds it only when a command touches it, so
 * entry points do not pay for every schema their imports declare.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const target = (): T => {
    built ??= build();
    return built;
  };
  // The proxy's own target is an empty object: every trap answers from the built value.
  return new Proxy({} as T, {
    get(_, key) {
      const value = Reflect.get(target(), key);
      return typeof value === 'function' ? value.bind(target()) : value;
    },
    has: (_, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor(_, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      // A proxy may not report a property as non-configurable unless its target has it so.
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
    set: (_, key, value) => Reflect.set(target(), key, value),
  });
}
