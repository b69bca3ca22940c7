// The database-admin image's base (`pharos/database-admin-base:local`), made by `docker import` of a root file system
// assembled from this machine's own files: the project's Node 24, Debian's npm, PostgreSQL 15's psql and pg_isready,
// the shared libraries they link and a static busybox. Nothing is pulled. It carries npm's cache (/var/cache/npm)
// of package-lock.json's production packages, which npm downloads here, so the image's `npm ci --offline` reaches no
// network; the base is made again when the lock file changes (its `pharos.npm-lock` label).
import { createHash } from 'node:crypto';
import { chmod, copyFile, cp, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { PROJECT_ROOT } from './run-script.ts';
import { requireDocker } from './base-image.ts';
import { importRootFs } from '../../scripts/lib/demo/base-image.ts';
import { placeFile as place, sharedLibraries as libraries } from '../../scripts/lib/demo/root-fs.ts';

export const DATABASE_ADMIN_BASE = 'pharos/database-admin-base:local';
const PG_BIN = '/usr/lib/postgresql/15/bin';
const APPLETS = ['sh', 'cat', 'echo', 'ls', 'env', 'id', 'mkdir', 'rm', 'test', 'true', 'false', 'sleep'];

const LOCK_LABEL = 'pharos.npm-lock';

/** npm's cache of the lock's production packages, as `npm ci` fills it (the host's npm, the npm registry). */
async function fillNpmCache(cache: string): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'database-admin-npm-'));
  try {
    for (const file of ['package.json', 'package-lock.json'])
      await copyFile(join(PROJECT_ROOT, file), join(work, file));
    const args = [
      'ci',
      '--omit=dev',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      '--cache',
      cache,
    ];
    const result = await exec('npm', args, { cwd: work, timeoutMs: 600_000 });
    if (result.code !== 0) throw new Error(`npm ci for the base's cache failed: ${result.stderr.trim()}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export async function ensureDatabaseAdminBase(tag = DATABASE_ADMIN_BASE): Promise<string> {
  await requireDocker();
  const lock = createHash('sha256')
    .update(await readFile(join(PROJECT_ROOT, 'package-lock.json')))
    .digest('hex');
  const label = await exec('docker', ['image', 'inspect', '--format', `{{index .Config.Labels "${LOCK_LABEL}"}}`, tag]);
  if (label.code === 0 && label.stdout.toString('utf8').trim() === lock) return tag;
  const root = await mkdtemp(join(tmpdir(), 'database-admin-base-'));
  try {
    await fillNpmCache(join(root, 'var/cache/npm'));
    const node = await realpath(join(PROJECT_ROOT, 'node_modules/node/bin/node'));
    const binaries = [node, join(PG_BIN, 'psql'), join(PG_BIN, 'pg_isready')];
    await place(root, node, '/usr/local/bin/node');
    await place(root, join(PG_BIN, 'psql'), '/usr/local/bin/psql');
    await place(root, join(PG_BIN, 'pg_isready'), '/usr/local/bin/pg_isready');
    for (const lib of await libraries(binaries)) await place(root, lib);
    await place(root, '/bin/busybox', '/bin/busybox');
    for (const applet of APPLETS) await symlink('busybox', join(root, 'bin', applet));
    await cp('/usr/lib/node_modules/npm', join(root, 'usr/local/lib/node_modules/npm'), {
      recursive: true,
      dereference: true,
    });
    await writeFile(
      join(root, 'usr/local/bin/npm'),
      '#!/bin/sh\nexec /usr/local/bin/node /usr/local/lib/node_modules/npm/bin/npm-cli.js "$@"\n',
      { mode: 0o755 },
    );
    await place(root, '/etc/ssl/certs/ca-certificates.crt');
    await mkdir(join(root, 'etc'), { recursive: true });
    // UID 70 is PostgreSQL's in its official images; the hooks run as it.
    await writeFile(
      join(root, 'etc/passwd'),
      'root:x:0:0:root:/root:/bin/sh\npostgres:x:70:70:PostgreSQL:/var/lib/postgresql:/bin/sh\n',
    );
    await writeFile(join(root, 'etc/group'), 'root:x:0:\npostgres:x:70:\n');
    await mkdir(join(root, 'tmp'));
    await chmod(join(root, 'tmp'), 0o1777);
    await mkdir(join(root, 'root'));
    await importRootFs(root, tag, [
      'ENV PATH=/usr/local/bin:/bin',
      'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt',
      'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt',
      `LABEL ${LOCK_LABEL}=${lock}`,
    ]);
    return tag;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
