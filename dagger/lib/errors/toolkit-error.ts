// Base of every domain error: a string code, structured details, an exit status, a cause.
export interface ToolkitErrorOptions {
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
  readonly exitCode?: number;
}

export class ToolkitError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly details: Readonly<Record<string, unknown>>;
  readonly exitCode: number;

  constructor(code: Code, message: string, options: ToolkitErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details ?? {};
    this.exitCode = options.exitCode ?? 1;
  }
}

/** Usage and configuration mistakes: the same call fails until the user fixes it. */
export class UsageError extends ToolkitError<'usage'> {
  constructor(message: string, options: Omit<ToolkitErrorOptions, 'exitCode'> = {}) {
    super('usage', message, { ...options, exitCode: 2 });
  }
}

export function isToolkitError(value: unknown): value is ToolkitError {
  return value instanceof ToolkitError;
}
