// The runtimes this version ships, by the catalogue's `takeover.runtime` name.
import { dockerRuntime } from './docker-runtime.ts';
import type { LocalRuntime } from './local-runtime.ts';
import { nativeRuntime } from './native-runtime.ts';

export const RUNTIMES: Readonly<Record<string, LocalRuntime>> = { native: nativeRuntime, docker: dockerRuntime() };
