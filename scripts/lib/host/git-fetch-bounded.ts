import { spawn } from 'node:child_process';
import { lstat, readdir, rm, stat } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import { exec } from '../ports/exec.ts';
import { gitEnv } from '../ports/git.ts';
import { killGroup, trackGroup } from '../ports/process-group.ts';
import { HostError } from './host-error.ts';
import { readRefFiles } from './ref-files.ts';

export interface FetchBounds {
  /** The whole fetch (every git process it starts) is killed after this long. */
  readonly timeoutMs: number;
  /** The pack it receives may grow to at most this many bytes. */
  readonly maxBytes: number;
}

const POLL_MS = 200;
const LOCAL_GIT_TIMEOUT_MS = 120_000;

/** Bytes of packs received since `before` was listed: index-pack's `tmp_pack_*` while it reads, and the packs it kept. */
async function incomingBytes(packDir: string, before: ReadonlySet<string>): Promise<number> {
  const names = await readdir(packDir).catch(() => [] as string[]);
  let total = 0;
  for (const name of names.filter((n) => n.startsWith('tmp_pack_') || (n.endsWith('.pack') && !before.has(n))))
    total += (await stat(join(packDir, name)).catch(() => undefined))?.size ?? 0;
  return total;
}

/** Every ref the fetch may move, by name, so a fetch over the limit can be undone. */
async function refSnapshot(gitDir: string): Promise<Map<string, string>> {
  // Read from the files git keeps them in when the layout is the host's own; git answers otherwise.
  const repo = await repositoryDir(gitDir);
  const files = repo === undefined ? undefined : await readRefFiles(repo, ['refs/remotes', 'refs/tags']);
  if (files !== undefined) return files;
  // Local git only, but bounded like every process: its own group under a deadline (the Exec port).
  const listed = (
    await exec(
      'git',
      // Symbolic refs (a clone's origin/HEAD) follow their target: undoing the target undoes them.
      [
        '-C',
        gitDir,
        'for-each-ref',
        '--format=%(if)%(symref)%(then)%(else)%(objectname) %(refname)%(end)',
        'refs/remotes',
        'refs/tags',
      ],
      {
        env: gitEnv(),
        timeoutMs: LOCAL_GIT_TIMEOUT_MS,
      },
    )
  ).stdout.toString('utf8');
  return new Map(
    listed
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => [l.slice(41), l.slice(0, 40)]),
  );
}

/** Puts every ref back as it was and removes the packs the fetch kept: the cache is exactly as before the fetch. */
async function undoFetch(
  gitDir: string,
  refs: ReadonlyMap<string, string>,
  packDir: string,
  packsBefore: ReadonlySet<string>,
): Promise<void> {
  const now = await refSnapshot(gitDir);
  const lines: string[] = [];
  for (const [ref, oid] of now)
    if (refs.get(ref) !== oid) lines.push(refs.has(ref) ? `update ${ref} ${refs.get(ref)}` : `delete ${ref}`);
  for (const [ref, oid] of refs) if (!now.has(ref)) lines.push(`update ${ref} ${oid}`);
  if (lines.length > 0) {
    const undone = await exec('git', ['-C', gitDir, 'update-ref', '--stdin'], {
      env: gitEnv(),
      input: `${lines.join('\n')}\n`,
      timeoutMs: LOCAL_GIT_TIMEOUT_MS,
    });
    if (undone.code !== 0)
      throw new HostError(
        'fetch-failed',
        `Cannot undo the refs of a fetch over the size limit in "${gitDir}" (git update-ref exited ${undone.code})`,
      );
  }
  for (const name of await readdir(packDir).catch(() => [] as string[])) {
    const pack = name.replace(/\.(idx|rev|keep|bitmap)$/, '.pack');
    if (name.startsWith('tmp_') || (pack.endsWith('.pack') && pack.startsWith('pack-') && !packsBefore.has(pack)))
      await rm(join(packDir, name), { force: true });
  }
}

/** The git directory of the two layouts the host makes (a bare cache, a clone with a `.git` folder); undefined for anything else (a `.git` file, GIT_* overrides). */
async function repositoryDir(gitDir: string): Promise<string | undefined> {
  if (process.env.GIT_DIR !== undefined || process.env.GIT_OBJECT_DIRECTORY !== undefined) return undefined;
  if (process.env.GIT_COMMON_DIR !== undefined) return undefined;
  for (const candidate of [join(gitDir, '.git'), gitDir]) {
    const [head, objects] = await Promise.all([
      lstat(join(candidate, 'HEAD')).catch(() => undefined),
      lstat(join(candidate, 'objects', 'pack')).catch(() => undefined),
    ]);
    const dotGit = candidate === gitDir ? undefined : await lstat(candidate).catch(() => undefined);
    if (dotGit !== undefined && !dotGit.isDirectory()) return undefined;
    if (head?.isFile() === true && objects?.isDirectory() === true) return resolvePath(candidate);
  }
  return undefined;
}

/** Where this repository keeps its packs: `objects/pack` of a bare cache, `.git/objects/pack` of a clone with a work tree. */
async function packDirOf(gitDir: string): Promise<string> {
  const repo = await repositoryDir(gitDir);
  if (repo !== undefined) return join(repo, 'objects', 'pack');
  const asked = await exec('git', ['-C', gitDir, 'rev-parse', '--path-format=absolute', '--git-path', 'objects/pack'], {
    env: gitEnv(),
    timeoutMs: LOCAL_GIT_TIMEOUT_MS,
  });
  const path = asked.stdout.toString('utf8').trim();
  if (asked.code !== 0 || path === '')
    throw new HostError('fetch-failed', `Cannot find the pack folder of "${gitDir}": ${asked.stderr.trim()}`);
  return path;
}

/**
 * `git fetch` into the host's repository (a bare cache or the reconciler clone) with a deadline and a size limit: the objects always arrive as one pack (never loose), the
 * pack's growth is watched, and the fetch's whole process group is killed when either bound is crossed.
 */
export async function gitFetchBounded(
  gitDir: string,
  args: readonly string[],
  bounds: FetchBounds,
): Promise<{ readonly code: number; readonly stderr: string }> {
  const packDir = await packDirOf(gitDir);
  const packsBefore = new Set((await readdir(packDir).catch(() => [] as string[])).filter((n) => n.endsWith('.pack')));
  const refsBefore = await refSnapshot(gitDir);
  // Auto-maintenance is run below, only after a fetch that kept a pack: an unchanged fetch gives it nothing to do.
  const child = spawn('git', ['-C', gitDir, '-c', 'fetch.unpackLimit=1', 'fetch', '--no-auto-maintenance', ...args], {
    env: gitEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 65_536) stderr += chunk.toString('utf8');
  });
  let stopped: 'timeout' | 'too-large' | undefined;
  let largest = 0;
  const release = child.pid === undefined ? () => {} : trackGroup(child.pid);
  const kill = (why: 'timeout' | 'too-large') => {
    stopped ??= why;
    if (child.pid !== undefined) killGroup(child.pid);
    // A process that left the group may still hold stderr: stop waiting for it.
    child.stderr.destroy();
  };
  const deadline = setTimeout(() => kill('timeout'), bounds.timeoutMs);
  const watch = setInterval(() => {
    void incomingBytes(packDir, packsBefore).then((bytes) => {
      largest = Math.max(largest, bytes);
      if (bytes > bounds.maxBytes) kill('too-large');
    });
  }, POLL_MS);
  const code = await new Promise<number>((resolve, reject) => {
    child.on('error', (cause) => reject(new HostError('fetch-failed', `Cannot run git: ${cause.message}`, { cause })));
    child.on('close', (status, signal) => resolve(status ?? (signal === null ? 1 : 128)));
  }).finally(() => {
    clearTimeout(deadline);
    clearInterval(watch);
    release();
  });
  // A pack can arrive between two looks: its final size decides too.
  if (stopped === undefined && code === 0) {
    largest = Math.max(largest, await incomingBytes(packDir, packsBefore));
    if (largest > bounds.maxBytes) stopped = 'too-large';
  }
  if (stopped !== undefined) {
    await undoFetch(gitDir, refsBefore, packDir, packsBefore);
    if (stopped === 'timeout')
      throw new HostError(
        'fetch-timeout',
        `Cannot fetch: no complete answer within ${bounds.timeoutMs / 1000} s (HEPHAESTUS_FETCH_TIMEOUT)`,
        { details: { timeoutMs: bounds.timeoutMs } },
      );
    throw new HostError(
      'fetch-too-large',
      `Cannot fetch: the server sent more than ${Math.round(bounds.maxBytes / 1048576)} MiB (HEPHAESTUS_FETCH_MAX_MIB); at least ${largest} bytes arrived`,
      { details: { maxBytes: bounds.maxBytes, received: largest } },
    );
  }
  if (code === 0 && (await newPacks(packDir, packsBefore))) {
    // As fetch would have: repack once packs pile up (gc.autoPackLimit). Housekeeping: its failure fails no fetch.
    await exec('git', ['-C', gitDir, 'maintenance', 'run', '--auto', '--quiet'], {
      env: gitEnv(),
      timeoutMs: LOCAL_GIT_TIMEOUT_MS,
    }).catch(() => undefined);
  }
  return { code, stderr };
}

async function newPacks(packDir: string, before: ReadonlySet<string>): Promise<boolean> {
  const names = await readdir(packDir).catch(() => [] as string[]);
  return names.some((n) => n.endsWith('.pack') && !before.has(n));
}
