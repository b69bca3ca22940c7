// The example's PostgreSQL base (`pharos/postgres-base:local`): Debian's postgresql-15 files of this machine (server binaries,
// libraries, share files), the ldd closure of every binary and extension library, zoneinfo, util-linux setpriv (to drop to
// UID 70) and static busybox, assembled into a root file system and imported with `docker import`. Nothing is pulled.
import { createHash } from 'node:crypto';
import { chmod, cp, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exec } from '../ports/exec.ts';
import { importRootFs } from './base-image.ts';
import { placeFile, sharedLibraries } from './root-fs.ts';

export const POSTGRES_BASE_IMAGE = 'pharos/postgres-base:local';
/** The label that carries the hash of what went into the image: a changed host package set gives another hash and a new import. */
export const INPUTS_LABEL = 'pharos.inputs';
const PG = '/usr/lib/postgresql/15';
const SHARE = '/usr/share/postgresql/15';
const BINARIES = ['postgres', 'initdb', 'pg_ctl', 'pg_isready', 'psql'];
// llvmjit pulls in all of LLVM for an optional JIT the example never turns on (jit=off in its configuration).
const SKIPPED_LIBRARIES = /^(llvmjit.*|bitcode)$/;
const APPLETS = [
  'sh',
  'cat',
  'echo',
  'ls',
  'env',
  'id',
  'mkdir',
  'rm',
  'test',
  'true',
  'false',
  'sleep',
  'chown',
  'chmod',
  'date',
  'hostname',
  'printf',
  'grep',
  'sed',
  'sort',
  'basename',
  'kill',
  'wc',
  'touch',
  'cut',
  'tr',
  'head',
  'tail',
  'cp',
  'mv',
  'stat',
  'mktemp',
  // migrate.sh reads each migration with transaction-control.awk before it runs it.
  'awk',
];
// Bump when the layout below changes, so images made by an older maker are replaced.
const LAYOUT = 'postgres-base/2';

export interface PostgresBaseInputs {
  /** Host files copied to the same path in the image. */
  readonly files: readonly string[];
  /** Host folders copied whole (symlinks resolved). */
  readonly folders: readonly string[];
}

/** What goes into the image: the binaries, the extension libraries, their ldd closure, setpriv and busybox. */
export async function postgresBaseInputs(): Promise<PostgresBaseInputs> {
  const libraries = (await readdir(join(PG, 'lib')))
    .filter((name) => name.endsWith('.so') && !SKIPPED_LIBRARIES.test(name))
    .map((name) => join(PG, 'lib', name));
  const binaries = BINARIES.map((name) => join(PG, 'bin', name));
  const closure = await sharedLibraries([...binaries, ...libraries, '/usr/bin/setpriv']);
  return {
    files: [...binaries, ...libraries, ...closure, '/usr/bin/setpriv', '/bin/busybox'].sort(),
    folders: [SHARE, '/usr/share/zoneinfo'],
  };
}

async function walk(dir: string, out: string[]): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walk(path, out);
    else out.push(path);
  }
}

/** sha256 over the layout version and every input's path, size and modification time. */
export async function inputsHash(inputs: PostgresBaseInputs): Promise<string> {
  const hash = createHash('sha256').update(`${LAYOUT}\n`);
  const files = [...inputs.files];
  for (const folder of inputs.folders) await walk(folder, files);
  for (const file of files.sort()) {
    const info = await stat(file);
    hash.update(`${file} ${info.size} ${Math.trunc(info.mtimeMs)}\n`);
  }
  return hash.digest('hex');
}

/** The image's inputs label, or undefined when the tag is absent. */
async function labelOf(tag: string): Promise<string | undefined> {
  const inspect = await exec('docker', [
    'image',
    'inspect',
    '--format',
    `{{index .Config.Labels "${INPUTS_LABEL}"}}`,
    tag,
  ]);
  return inspect.code === 0 ? inspect.stdout.toString('utf8').trim() : undefined;
}

/**
 * Imports the PostgreSQL base once: a present tag whose label matches the hash of today's inputs is kept ('present');
 * otherwise the image is made again ('imported'), so an upgraded postgresql-15 or libc reaches the example.
 */
export async function ensurePostgresBaseImage(tag = POSTGRES_BASE_IMAGE): Promise<'present' | 'imported'> {
  for (const file of ['/usr/lib/postgresql/15/bin/postgres', '/usr/bin/setpriv', '/bin/busybox']) {
    if ((await exec('test', ['-x', file])).code !== 0)
      throw new Error(
        `Cannot make ${tag}: ${file} is missing (run scripts/install-tools.sh demo: it installs postgresql)`,
      );
  }
  const inputs = await postgresBaseInputs();
  const hash = await inputsHash(inputs);
  if ((await labelOf(tag)) === hash) return 'present';
  const root = await mkdtemp(join(tmpdir(), 'pharos-postgres-base-'));
  try {
    for (const file of inputs.files) await placeFile(root, file);
    for (const folder of inputs.folders) await cp(folder, join(root, folder), { recursive: true, dereference: true });
    for (const applet of APPLETS) await symlink('busybox', join(root, 'bin', applet));
    // UID 70 is PostgreSQL's in its official images; the server and the migrations run as it.
    await mkdir(join(root, 'etc'), { recursive: true });
    await writeFile(
      join(root, 'etc/passwd'),
      'root:x:0:0:root:/root:/bin/sh\npostgres:x:70:70:PostgreSQL:/var/lib/postgresql:/bin/sh\n',
    );
    await writeFile(join(root, 'etc/group'), 'root:x:0:\npostgres:x:70:\n');
    for (const dir of ['tmp', 'root', 'var/lib/postgresql/data', 'var/run/postgresql'])
      await mkdir(join(root, dir), { recursive: true });
    await chmod(join(root, 'tmp'), 0o1777);
    await importRootFs(root, tag, [
      `ENV PATH=${PG}/bin:/usr/bin:/bin`,
      'ENV PGDATA=/var/lib/postgresql/data',
      'ENV TZ=UTC',
      `LABEL ${INPUTS_LABEL}=${hash}`,
    ]);
    return 'imported';
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
