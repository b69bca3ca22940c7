import type { HashProgress } from '../fingerprint/tree-source.ts';

/** A one-line progress meter on stderr when it is a terminal; silent in pipes, journals and CI. */
export function hashProgress(label: string, stream: NodeJS.WriteStream = process.stderr): HashProgress | undefined {
  if (!stream.isTTY) return undefined;
  let last = 0;
  return (done, total) => {
    const now = Date.now();
    if (now - last < 200 && done.files < total.files) return;
    last = now;
    const mb = (n: number) => (n / 1048576).toFixed(0);
    stream.write(
      `\r${label}: ${done.files}/${total.files} files, ${mb(done.bytes)}${total.bytes > 0 ? `/${mb(total.bytes)}` : ''} MiB`,
    );
    if (done.files >= total.files) stream.write('\r\x1b[K');
  };
}
