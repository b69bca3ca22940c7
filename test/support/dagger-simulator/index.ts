export { startDaggerSimulator } from './dagger-simulator.ts';
export type { DaggerSimulator } from './dagger-simulator.ts';
export { inSession } from './in-session.ts';
