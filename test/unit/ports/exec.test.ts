// The Exec port against real processes: each program leads its own process group, and the deadline ends the group.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exec, ExecError } from '../../../scripts/lib/ports/exec.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** Running, or sleeping: a zombie (killed, not yet reaped by whoever adopted it) is not alive. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('exec(): a deadline ends the whole process group and stops waiting for its pipes', () => {
  it('a program whose background child keeps stdout open ends at the deadline, and the child is killed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'exec-group-'));
    dirs.push(dir);
    const pidFile = join(dir, 'sleep.pid');
    // The shell exits at once; the `sleep` it leaves behind holds stdout and stderr open for a minute.
    const script = `sleep 60 & echo $! > ${pidFile}; echo started`;
    const started = Date.now();
    const error = await exec('sh', ['-c', script], { timeoutMs: 1500 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error).toBeInstanceOf(ExecError);
    expect(error).toMatchObject({
      code: 'timeout',
      message: expect.stringMatching(/no answer within 1500 ms; its process group was killed$/),
    });
    const sleeper = Number((await readFile(pidFile, 'utf8')).trim());
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(sleeper)).toBe(false);
  });

  it('a program that never exits is killed with every process it started', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'exec-hang-'));
    dirs.push(dir);
    const pidFile = join(dir, 'child.pid');
    await writeFile(join(dir, 'hang.sh'), `sleep 60 &\necho $! > ${pidFile}\nwait\n`);
    const error = await exec('sh', [join(dir, 'hang.sh')], { timeoutMs: 1000 }).catch((e: unknown) => e);
    expect((error as ExecError).code).toBe('timeout');
    const child = Number((await readFile(pidFile, 'utf8')).trim());
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(child)).toBe(false);
  });

  it('runs each program as the leader of a new process group', async () => {
    const result = await exec('sh', ['-c', 'echo $$; cat /proc/$$/stat']);
    const [pid, stat] = result.stdout.toString('utf8').trim().split('\n');
    // /proc/<pid>/stat: pid (comm) state ppid pgrp …
    const pgid = /^\d+ \(.*\) \S+ \d+ (\d+)/.exec(stat ?? '')?.[1];
    expect(pgid).toBe(pid);
    expect(Number(pgid)).not.toBe(process.pid);
  });

  it('still returns output, input and exit status as before', async () => {
    const result = await exec('sh', ['-c', 'cat; echo err >&2; exit 3'], { input: 'hello' });
    expect([result.code, result.stdout.toString('utf8'), result.stderr]).toEqual([3, 'hello', 'err\n']);
  });
});
