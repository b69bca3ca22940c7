// A real OpenSSH server for the runner tests: /usr/sbin/sshd on a free loopback port, with a generated host key,
// a generated user key in its own authorized_keys, public keys only. It runs as the test's user (root here) and
// stands for the Linux runner; stop() ends only this daemon and its sessions.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { exec, execOk } from '../../../scripts/lib/ports/exec.ts';

export interface TestSshd {
  readonly port: number;
  readonly user: string;
  /** The client's private key. */
  readonly identity: string;
  /** A known_hosts file holding this server's real host key. */
  readonly knownHosts: string;
  /** A known_hosts file naming the same host with another key (an impostor, or a rebuilt runner). */
  readonly wrongKnownHosts: string;
  readonly dir: string;
  /** Kills every session process (the daemon stays): a connection dropped mid-way. */
  dropSessions(): Promise<number>;
  log(): Promise<string>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

async function keygen(file: string): Promise<string> {
  await execOk(exec, 'ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'pharos-test', '-f', file]);
  return (await readFile(`${file}.pub`, 'utf8')).trim();
}

/** Descendants of a process, deepest first, from /proc (only processes this daemon started). */
async function descendants(pid: number): Promise<number[]> {
  const result = await exec('ps', ['-e', '-o', 'pid=,ppid=']);
  const children = new Map<number, number[]>();
  for (const line of result.stdout.toString('utf8').split('\n')) {
    const [p, pp] = line.trim().split(/\s+/).map(Number);
    if (p === undefined || pp === undefined || Number.isNaN(p)) continue;
    children.set(pp, [...(children.get(pp) ?? []), p]);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      walk(c);
      out.push(c);
    }
  };
  walk(pid);
  return out;
}

export async function startTestSshd(): Promise<TestSshd> {
  const dir = await mkdtemp(join(tmpdir(), 'pharos-sshd16-'));
  const port = await freePort();
  const [hostKey, userKey, otherKey] = await Promise.all([
    keygen(join(dir, 'host_ed25519')),
    keygen(join(dir, 'user_ed25519')),
    keygen(join(dir, 'other_ed25519')),
  ]);
  await writeFile(join(dir, 'authorized_keys'), `${userKey}\n`, { mode: 0o600 });
  await writeFile(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostKey.split(' ').slice(0, 2).join(' ')}\n`);
  await writeFile(join(dir, 'wrong_known_hosts'), `[127.0.0.1]:${port} ${otherKey.split(' ').slice(0, 2).join(' ')}\n`);
  const config = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(dir, 'host_ed25519')}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'PermitRootLogin prohibit-password',
    // The keys live in a temp folder, not the user's ~/.ssh; StrictModes' ownership walk would refuse /tmp.
    'StrictModes no',
    'AllowTcpForwarding no',
    'X11Forwarding no',
    'PrintMotd no',
    'LogLevel VERBOSE',
  ].join('\n');
  await writeFile(join(dir, 'sshd_config'), `${config}\n`);
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 }); // sshd's privilege separation folder
  const logFile = join(dir, 'sshd.log');
  const child: ChildProcess = spawn('/usr/sbin/sshd', ['-D', '-f', join(dir, 'sshd_config'), '-E', logFile], {
    stdio: 'ignore',
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const text = await readFile(logFile, 'utf8').catch(() => '');
    if (text.includes('Server listening')) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`test sshd did not start: ${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    user: userInfo().username,
    identity: join(dir, 'user_ed25519'),
    knownHosts: join(dir, 'known_hosts'),
    wrongKnownHosts: join(dir, 'wrong_known_hosts'),
    dir,
    async dropSessions() {
      const pids = child.pid === undefined ? [] : await descendants(child.pid);
      // The session processes only (sshd's per-connection children): the commands they run notice the drop themselves.
      const sessions = [];
      for (const pid of pids) {
        const comm = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
        if (comm === 'sshd') sessions.push(pid);
      }
      for (const pid of sessions) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      return sessions.length;
    },
    log: () => readFile(logFile, 'utf8'),
    async stop() {
      for (const pid of child.pid === undefined ? [] : await descendants(child.pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
