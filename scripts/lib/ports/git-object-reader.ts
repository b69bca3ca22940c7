import type { Git } from './git.ts';

/** What `git cat-file` says of an object name: its id, type and size, or that it has no such object. */
export type ObjectInfo =
  | { readonly kind: 'found'; readonly oid: string; readonly type: string; readonly size: number }
  | { readonly kind: 'missing' };

/** One `git cat-file --batch-command` for many reads: names are resolved and blobs read without a process each. */
export interface GitObjectReader {
  /** Resolves `name` (`<rev>`, `<rev>^{commit}`, `<commit>:<path>`) without reading its contents. */
  info(name: string): Promise<ObjectInfo>;
  /** The bytes of the object `oid` (as `info` named it). */
  contents(oid: string): Promise<Buffer>;
  /** Ends the process; every later call fails. */
  close(): Promise<void>;
}

/** Local git only: a reader that has not answered within this long is killed (the Exec port's rule: no process may hang a command). */
export const OBJECT_READER_TIMEOUT_MS = 120_000;

/** `<oid> <type> <size>`; anything else (`<name> missing`, `<name> ambiguous`) has no body. */
const FOUND = /^([0-9a-f]{40}|[0-9a-f]{64}) ([a-z]+) (\d+)$/;

interface Pending {
  readonly withBody: boolean;
  readonly resolve: (answer: { header: string; body: Buffer | undefined }) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Starts `git cat-file --batch-command` in `git.dir`. Questions are answered in order; `info` before `contents` lets
 * the caller refuse a blob by its size before a byte of it is read. It needs a port whose `spawn` answers while
 * stdin is open: the Dagger module's container port, which runs git once stdin ends, cannot serve it.
 */
export function openObjectReader(git: Git, timeoutMs: number = OBJECT_READER_TIMEOUT_MS): GitObjectReader {
  const child = git.spawn(['cat-file', '--batch-command']);
  const queue: Pending[] = [];
  let buffer: Buffer = Buffer.alloc(0);
  let stderr = '';
  let failure: Error | undefined;
  const fail = (error: Error): void => {
    failure ??= error;
    for (const pending of queue.splice(0)) pending.reject(failure);
  };
  const timer = setTimeout(() => {
    child.kill('SIGKILL');
    fail(new Error(`Cannot read objects in "${git.dir}": git cat-file gave no answer within ${timeoutMs / 1000} s`));
  }, timeoutMs);
  timer.unref();
  const drain = (): void => {
    for (;;) {
      const pending = queue[0];
      if (pending === undefined) return;
      const nl = buffer.indexOf(10);
      if (nl < 0) return;
      const header = buffer.subarray(0, nl).toString('utf8');
      const size = FOUND.exec(header)?.[3];
      if (!pending.withBody || size === undefined) {
        buffer = buffer.subarray(nl + 1);
        queue.shift();
        pending.resolve({ header, body: undefined });
        continue;
      }
      const end = nl + 1 + Number(size);
      // The body is followed by one LF.
      if (buffer.length <= end) return;
      const body = Buffer.from(buffer.subarray(nl + 1, end));
      buffer = buffer.subarray(end + 1);
      queue.shift();
      pending.resolve({ header, body });
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    drain();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 65_536) stderr += chunk.toString('utf8');
  });
  child.stdin.on('error', () => {}); // git may exit before reading (not a repository)
  child.on('error', (cause) => fail(new Error(`Cannot run git cat-file in "${git.dir}": ${cause.message}`)));
  const closed = new Promise<void>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      fail(
        new Error(
          `Cannot read objects in "${git.dir}": git cat-file exited ${code ?? 'on a signal'}${stderr.trim() === '' ? '' : `: ${stderr.trim()}`}`,
        ),
      );
      resolve();
    }),
  );
  const ask = (command: string, withBody: boolean) =>
    new Promise<{ header: string; body: Buffer | undefined }>((resolve, reject) => {
      if (failure !== undefined) return reject(failure);
      // A name with a line break would be two commands.
      if (/[\n\r]/.test(command)) return reject(new Error(`Cannot ask git cat-file for ${JSON.stringify(command)}`));
      queue.push({ withBody, resolve, reject });
      child.stdin.write(`${command}\n`);
    });
  return {
    async info(name) {
      const { header } = await ask(`info ${name}`, false);
      const found = FOUND.exec(header);
      if (found === null) return { kind: 'missing' };
      return { kind: 'found', oid: found[1] ?? '', type: found[2] ?? '', size: Number(found[3]) };
    },
    async contents(oid) {
      const { header, body } = await ask(`contents ${oid}`, true);
      if (body === undefined)
        throw new Error(`Cannot read object ${oid} in "${git.dir}": git cat-file said "${header}"`);
      return body;
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.stdin.end();
      await closed;
    },
  };
}
