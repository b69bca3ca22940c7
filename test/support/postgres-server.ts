// A real PostgreSQL 15 (Debian's postgresql package) in a temp folder on a free loopback port, for one test file.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { freePort } from '../../scripts/lib/demo/local-registry.ts';
import { userInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const PG_BIN = '/usr/lib/postgresql/15/bin';

export interface PostgresServer {
  readonly host: string;
  readonly port: number;
  readonly adminUser: string;
  readonly adminPassword: string;
  /** Sets the administrator's password, as PostgreSQL's image does from POSTGRES_PASSWORD when it initialises. */
  setAdminPassword(password: string): Promise<void>;
  /** A client logged in as the administrator (to `postgres` unless told). */
  admin(database?: string): Promise<pg.Client>;
  stop(): Promise<void>;
  /** Start again on the same port and data (after `stop`). */
  start(): Promise<void>;
  close(): Promise<void>;
}

// initdb and postgres refuse to run as root: as root they run as Debian's "postgres" user.
function runAs(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Fails loudly when Debian's PostgreSQL 15 is missing: `scripts/install-tools.sh test` installs it. */
export async function startPostgres(): Promise<PostgresServer> {
  if (!existsSync(join(PG_BIN, 'postgres')))
    throw new Error(
      `PostgreSQL 15 is not installed (${PG_BIN}/postgres is missing): run scripts/install-tools.sh test`,
    );
  const user = runAs();
  const dir = await mkdtemp(join(tmpdir(), 'pharos-pg-'));
  const data = join(dir, 'data');
  let adminPassword = `admin-${Math.random().toString(36).slice(2)}`;
  const pwfile = join(dir, 'pwfile');
  await writeFile(pwfile, `${adminPassword}\n`, { mode: 0o600 });
  if (user) {
    await chown(dir, user.uid, user.gid);
    await chown(pwfile, user.uid, user.gid);
  }
  const init = spawnSync(
    join(PG_BIN, 'initdb'),
    [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth=scram-sha-256',
      `--pwfile=${pwfile}`,
      '-E',
      'UTF8',
      '--no-sync',
      '--locale=C.UTF-8',
    ],
    { encoding: 'utf8', ...(user ?? {}) },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    // No pg_ctl: it passes options through a shell; the server is spawned with an argument array and stopped by its pid.
    const proc = spawn(
      join(PG_BIN, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'synchronous_commit=off',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], ...(user ?? {}) },
    );
    let log = '';
    proc.stderr?.on('data', (d: Buffer) => (log += d));
    child = proc;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const client = new pg.Client({
        host: '127.0.0.1',
        port,
        user: 'postgres',
        password: adminPassword,
        database: 'postgres',
      });
      try {
        await client.connect();
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (proc.exitCode !== null || Date.now() > deadline)
          throw new Error(`PostgreSQL did not start on port ${port}: ${(error as Error).message}\n${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  async function stop(): Promise<void> {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGINT'); // fast shutdown
    await exited;
  }

  await start();
  const connectAdmin = async (database = 'postgres') => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: adminPassword, database });
    await client.connect();
    return client;
  };
  return {
    host: '127.0.0.1',
    port,
    adminUser: 'postgres',
    get adminPassword() {
      return adminPassword;
    },
    async setAdminPassword(password) {
      const client = await connectAdmin();
      try {
        await client.query(`ALTER ROLE postgres PASSWORD ${client.escapeLiteral(password)}`);
        adminPassword = password;
      } finally {
        await client.end();
      }
    },
    admin: connectAdmin,
    stop,
    start,
    async close() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
