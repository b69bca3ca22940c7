import { ToolkitError } from '../errors/toolkit-error.ts';

export class ChannelError extends ToolkitError<'malformed' | 'too-large'> {}
