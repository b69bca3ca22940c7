export { exec, execOk, ExecError } from './exec.ts';
export type { Exec, ExecOptions, ExecResult } from './exec.ts';
export { writeFileAtomic } from './atomic-write.ts';
export type { AtomicWriteOptions } from './atomic-write.ts';
export { systemClock, manualClock } from './clock.ts';
export type { Clock } from './clock.ts';
export { gitPort, gitEnv } from './git.ts';
export type { Git } from './git.ts';
