export { startDaggerSimulator } from './dagger-simulator.ts';
export type { DaggerSimulator } from './dagger-simulator.ts';
export { inSession } from './in-session.ts';
export { startDaggerLab } from './dagger-lab.ts';
export type { DaggerLab } from './dagger-lab.ts';
