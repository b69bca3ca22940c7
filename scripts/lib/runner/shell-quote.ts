/**
 * One argument for the remote POSIX shell: ssh joins its remote arguments with spaces and the runner's shell
 * splits them again, so each is wrapped in single quotes (inside which nothing is special) and every single
 * quote becomes '\'' (close, escaped quote, reopen).
 */
export function shellQuote(arg: string): string {
  if (arg.includes('\0')) throw new Error('Cannot pass an argument with a NUL byte to the runner');
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** The remote command line ssh sends: every argument quoted, none interpreted. */
export function remoteCommand(args: readonly string[]): string {
  return args.map(shellQuote).join(' ');
}
