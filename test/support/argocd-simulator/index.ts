export { ArgoCdSimulator, SyncRefusedError } from './argocd-simulator.ts';
export type { ArgoCdSimulatorOptions, SimulatorEvent } from './argocd-simulator.ts';
export { renderSource } from './kustomize-build.ts';
export type { KustomizeOverrides } from './kustomize-build.ts';
export { checkout, resolveRevision } from './git-source.ts';
export { parseImageOverride, parseImageRef } from './kustomize-images.ts';
export { reconcileWorkloads } from './workload-controller.ts';
export type { HookRunner } from './sync-waves.ts';
