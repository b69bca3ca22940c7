import { FingerprintError } from '../fingerprint/fingerprint-error.ts';
import type { Git } from '../ports/git.ts';

export interface CheckoutCommit {
  readonly commit: string;
  /** The bytes of `path` (relative to the checkout) at that commit, or undefined when it has no such file. */
  readonly file: Buffer | undefined;
}

interface Answer {
  readonly oid: string;
  readonly type: string;
  readonly body: Buffer | undefined;
}

/**
 * Resolves a revision and reads one file of that very commit with one `git cat-file --batch`: the second
 * question names the resolved commit, so a branch that moves meanwhile cannot mix two commits.
 */
export async function readCheckoutCommit(git: Git, rev: string, path: string): Promise<CheckoutCommit> {
  if (/[\n\r\0]/.test(rev))
    throw new FingerprintError('unknown-revision', `Cannot resolve revision ${JSON.stringify(rev)}: no such commit`, {
      details: { rev },
    });
  const child = git.spawn(['cat-file', '--batch']);
  let buffer = Buffer.alloc(0);
  let stderr = '';
  let ended = false;
  let wake: (() => void) | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    wake?.();
  });
  child.stdout.on('end', () => {
    ended = true;
    wake?.();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.on('error', () => {}); // git may exit before reading (not a repository)
  const closed = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  const spawnFailed = new Promise<never>((_, reject) => child.on('error', reject));
  spawnFailed.catch(() => {});

  async function ask(question: string): Promise<Answer | undefined> {
    child.stdin.write(`${question}\n`);
    for (;;) {
      const nl = buffer.indexOf(10);
      if (nl >= 0) {
        const [oid = '', type = 'missing', size] = buffer.subarray(0, nl).toString('utf8').split(' ');
        if (size === undefined) {
          buffer = buffer.subarray(nl + 1);
          return { oid, type: 'missing', body: undefined };
        }
        const end = nl + 1 + Number(size);
        if (buffer.length > end) {
          const body = Buffer.from(buffer.subarray(nl + 1, end));
          buffer = buffer.subarray(end + 1);
          return { oid, type, body };
        }
      }
      if (ended) return undefined;
      await Promise.race([new Promise<void>((resolve) => (wake = resolve)), spawnFailed]);
    }
  }

  try {
    const head = await ask(`${rev}^{commit}`);
    if (head?.type !== 'commit') {
      child.stdin.end();
      await closed;
      if (head === undefined && /not a git repository/i.test(stderr)) {
        throw new FingerprintError('not-a-git-repo', `Cannot read commits of "${git.dir}": not a git repository`, {
          details: { repo: git.dir },
        });
      }
      throw new FingerprintError(
        'unknown-revision',
        `Cannot resolve revision "${rev}" in "${git.dir}": no such commit`,
        { details: { repo: git.dir, rev } },
      );
    }
    const file = await ask(`${head.oid}:./${path}`);
    child.stdin.end();
    await closed;
    return { commit: head.oid, file: file?.type === 'blob' ? file.body : undefined };
  } finally {
    if (child.exitCode === null) child.kill();
  }
}
