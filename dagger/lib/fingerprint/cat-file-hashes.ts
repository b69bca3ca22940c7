import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import type { Git } from '../ports/git.ts';
import { FingerprintError } from './fingerprint-error.ts';
import { reclaimBuffers } from './reclaim-buffers.ts';

const RECLAIM_BYTES = 16 << 20;

/**
 * Streams `git cat-file --batch` output through SHA-256, one blob at a time: no blob is
 * ever held whole, so a 1 GiB file costs one pipe buffer of memory.
 */
function hashBatch(git: Git, oids: readonly string[], onBlob: (bytes: number) => void): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const child = git.spawn(['cat-file', '--batch', '--buffer']);
    const out = new Map<string, string>();
    let header: Buffer[] = [];
    let hash: Hash | undefined;
    let oid = '';
    let remaining = 0; // content bytes still to read for the current blob
    let trailer = false; // the newline after a blob's content
    let stderr = '';
    let failed = false;
    const failWith = (error: Error) => {
      if (failed) return;
      failed = true;
      child.kill('SIGKILL');
      reject(error);
    };
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    let sinceReclaim = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      sinceReclaim += chunk.length;
      if (sinceReclaim >= RECLAIM_BYTES) {
        sinceReclaim = 0;
        reclaimBuffers();
      }
      let pos = 0;
      while (pos < chunk.length && !failed) {
        if (hash !== undefined) {
          const take = Math.min(remaining, chunk.length - pos);
          hash.update(chunk.subarray(pos, pos + take));
          pos += take;
          remaining -= take;
          if (remaining === 0) {
            out.set(oid, hash.digest('hex'));
            hash = undefined;
            trailer = true;
          }
        } else if (trailer) {
          pos++;
          trailer = false;
        } else {
          const nl = chunk.indexOf(10, pos);
          if (nl < 0) {
            header.push(chunk.subarray(pos));
            break;
          }
          header.push(chunk.subarray(pos, nl));
          pos = nl + 1;
          const line = Buffer.concat(header).toString('utf8');
          header = [];
          const [id, type, size] = line.split(' ');
          if (type !== 'blob' || size === undefined) {
            failWith(
              new FingerprintError('git-failed', `Cannot read blob "${id}": git answered "${line}"`, {
                details: { oid: id },
              }),
            );
            return;
          }
          oid = id ?? '';
          remaining = Number(size);
          hash = createHash('sha256');
          onBlob(remaining);
          if (remaining === 0) {
            out.set(oid, hash.digest('hex'));
            hash = undefined;
            trailer = true;
          }
        }
      }
    });
    child.on('error', (cause) =>
      failWith(new FingerprintError('git-failed', `Cannot run "git cat-file": ${cause.message}`, { cause })),
    );
    child.on('close', (code) => {
      if (failed) return;
      if (code !== 0) {
        failWith(
          new FingerprintError(
            'git-failed',
            `Command "git cat-file --batch" failed with status ${code}: ${stderr.trim()}`,
          ),
        );
        return;
      }
      resolve(out);
    });
    child.stdin.on('error', () => {});
    child.stdin.end(oids.length > 0 ? `${oids.join('\n')}\n` : '');
  });
}

/** SHA-256 of each blob's content, two `cat-file` processes at once when there is work for both. */
export async function hashBlobs(
  git: Git,
  oids: readonly string[],
  onBlob: (bytes: number) => void = () => {},
): Promise<Map<string, string>> {
  const unique = [...new Set(oids)];
  if (unique.length < 64) return hashBatch(git, unique, onBlob);
  const halves: [string[], string[]] = [[], []];
  unique.forEach((id, i) => halves[i % 2]?.push(id));
  const [a, b] = await Promise.all(halves.map((half) => hashBatch(git, half, onBlob)));
  return new Map([...(a ?? []), ...(b ?? [])]);
}
