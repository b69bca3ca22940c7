// What the takeover commands need beyond planning, loaded on demand (the Kubernetes client is slow to load).
export { openTakeoverContext } from './open-context.ts';
export { cleanUp } from './clean-up.ts';
export { runTakeoverStart } from './run-start.ts';
export { releaseTarget } from './release-target.ts';
export { imagesRunningHere, readTakeoverStatus } from './read-status.ts';
export { formatStatus } from './status.ts';
