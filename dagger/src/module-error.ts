// The module's own failures; the library's errors (catalogue, fingerprint, lock, signing) pass through unchanged.
import { ToolkitError } from '../lib/errors/toolkit-error.ts';

export type ModuleErrorCode = 'bad-argument' | 'build-failed' | 'publish-failed' | 'check-failed' | 'not-a-repository';

export class ModuleError extends ToolkitError<ModuleErrorCode> {}
