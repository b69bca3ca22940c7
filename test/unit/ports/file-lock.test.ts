// tick.lock against the real kernel: flock(2) on our own open file, never stale, and never through a symlink.
import { spawn } from 'node:child_process';
import { lstat, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireFileLock } from '../../../scripts/lib/ports/file-lock.ts';
import { ToolkitError } from '../../../scripts/lib/errors/toolkit-error.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'file-lock-'));
  dirs.push(dir);
  return dir;
};
const lockModule = join(import.meta.dirname, '..', '..', '..', 'scripts', 'lib', 'ports', 'file-lock.ts');

/** A separate Node process that tries the lock, prints held/busy, and keeps it for `holdMs`. */
function contender(file: string, holdMs: number) {
  const code = `const { acquireFileLock } = await import(${JSON.stringify(lockModule)});
const lock = await acquireFileLock(${JSON.stringify(file)});
process.stdout.write(lock.held ? 'held\\n' : 'busy ' + lock.holder + '\\n');
await new Promise((r) => setTimeout(r, ${holdMs}));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const firstLine = new Promise<string>((resolve) =>
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim());
    }),
  );
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return { child, firstLine, exited };
}

describe('acquireFileLock', () => {
  it('two processes at once: exactly one holds it, the other is busy (told the holder’s pid once it is written)', async () => {
    const file = join(await tempDir(), 'tick.lock');
    const a = contender(file, 1500);
    const b = contender(file, 1500);
    const answers = await Promise.all([a.firstLine, b.firstLine]);
    expect(answers.filter((x) => x === 'held')).toHaveLength(1);
    const holder = answers[0] === 'held' ? a.child.pid : b.child.pid;
    // The holder writes its pid just after it locks: a contender that looks in between learns no pid.
    expect([[`busy ${holder}`], ['busy undefined']]).toContainEqual(answers.filter((x) => x !== 'held'));
    await Promise.all([a.exited, b.exited]);
    expect((await lstat(file)).mode & 0o777).toBe(0o600);
  });

  it('a holder killed with SIGKILL leaves no stale lock: the kernel released it', async () => {
    const file = join(await tempDir(), 'tick.lock');
    const holder = contender(file, 60_000);
    expect(await holder.firstLine).toBe('held');
    expect(await acquireFileLock(file)).toEqual({ held: false, holder: holder.child.pid });
    holder.child.kill('SIGKILL');
    await holder.exited;
    const lock = await acquireFileLock(file);
    expect(lock.held).toBe(true);
    expect((await readFile(file, 'utf8')).trim()).toBe(String(process.pid));
    if (lock.held) await lock.release();
  });

  it('within one process a second open file is refused too, and release frees it', async () => {
    const file = join(await tempDir(), 'tick.lock');
    const first = await acquireFileLock(file);
    expect(first.held).toBe(true);
    expect(await acquireFileLock(file)).toEqual({ held: false, holder: process.pid });
    if (first.held) await first.release();
    const again = await acquireFileLock(file);
    expect(again.held).toBe(true);
    if (again.held) await again.release();
  });

  it('a symlink planted as the lock file is refused (exit 2), and its target is neither created nor truncated', async () => {
    const dir = await tempDir();
    const victim = join(dir, 'victim');
    await writeFile(victim, 'precious\n');
    const file = join(dir, 'tick.lock');
    await symlink(victim, file);
    const error = await acquireFileLock(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolkitError);
    expect(error).toMatchObject({ code: 'unsafe-lock', exitCode: 2, details: { file } });
    expect((error as Error).message).toBe(`Cannot lock "${file}": it is a symbolic link; remove it`);
    expect(await readFile(victim, 'utf8')).toBe('precious\n');
    const dangling = join(dir, 'dangling.lock');
    await symlink(join(dir, 'would-be-created'), dangling);
    await expect(acquireFileLock(dangling)).rejects.toMatchObject({ code: 'unsafe-lock' });
    await expect(lstat(join(dir, 'would-be-created'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
