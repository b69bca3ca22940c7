export { LockError } from './lock-error.ts';
export type { LockErrorCode } from './lock-error.ts';
export { composeLockSchema, chartLockSchema, lockFileName } from './lock-schema.ts';
export type { ComposeLock, ChartLock, ReleaseLock } from './lock-schema.ts';
export { parseLock, serializeLock } from './parse-lock.ts';
export { checkLockMatches, checkImageBindings, lockEnv } from './check-lock.ts';
export type { ImageUse } from './check-lock.ts';
export { produceLock, imageVariable } from './produce-lock.ts';
export type { ProduceInput } from './produce-lock.ts';
