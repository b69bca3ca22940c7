export { ToolkitError, UsageError, isToolkitError } from './toolkit-error.ts';
export type { ToolkitErrorOptions } from './toolkit-error.ts';
export { describeZodIssues, formatIssuePath } from './zod-issues.ts';
