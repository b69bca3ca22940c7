// What the takeover commands need beyond planning, loaded on demand (the Kubernetes client is slow to load).
export { kubeFromFile } from '../ports/kube.ts';
export { acquireLocalLock } from '../target/local-lock.ts';
export { TargetError } from '../target/target-error.ts';
export { decideRelease } from '../ownership/decide-release.ts';
export { makeTakeoverContext } from './make-context.ts';
export { cleanupTarget } from '../ownership/cleanup-target.ts';
export { stopLocalFor, startSession } from './session.ts';
export { resolveWorkloads } from './resolve-workloads.ts';
export { handBack, stateFor } from './hand-back.ts';
export { takeoverStatus, formatStatus } from './status.ts';
export { chooseReplacement } from './choose-replacement.ts';
export { watchSession } from './session-watcher.ts';
export { liveStatus } from './live-status.ts';
