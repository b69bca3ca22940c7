export { startDaggerSimulator } from './dagger-simulator.ts';
export type { DaggerSimulator } from './dagger-simulator.ts';
export { inSession } from './in-session.ts';
export { startDaggerLab } from './dagger-lab.ts';
export type { DaggerLab } from './dagger-lab.ts';
export { loadModule, FunctionError } from './module-runtime.ts';
export type { ModuleRuntime } from './module-runtime.ts';
export { ensureGitImage } from './rootfs-image.ts';
export { nodeImage, hasGit } from './runtime-layout.ts';
