import type { Kube } from '../ports/kube.ts';

/**
 * A Kube that loads its kubeconfig on the first call: on a fresh dev box the k3s layer writes that file, so the
 * deploy must not read it before its layers ran.
 */
export function lazyKube(load: () => Kube): Kube {
  let loaded: Kube | undefined;
  return new Proxy({} as Kube, {
    get(_target, property) {
      loaded ??= load();
      const value = Reflect.get(loaded, property) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(loaded) : value;
    },
  });
}
