import { ToolkitError } from '../errors/toolkit-error.ts';

/** Seeding the in-cluster registry with the bases the catalogue's Dockerfiles name. */
export class SeedError extends ToolkitError<'base-outside-registry' | 'base-missing' | 'push-failed'> {}
