// The example's PostgreSQL base image made from this machine's Debian files with the real Docker Engine: imported once,
// kept while its inputs hash matches, made again when the tag holds anything else; and the example's database image on it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec, execOk } from '../../scripts/lib/ports/exec.ts';
import { EXAMPLE_DIR } from '../support/host/example-images.ts';
import {
  INPUTS_LABEL,
  ensurePostgresBaseImage,
  inputsHash,
  postgresBaseInputs,
} from '../../scripts/lib/demo/postgres-base-image.ts';
import { BASE_IMAGE, ensureBaseImage, requireDocker } from '../support/base-image.ts';

const ID = randomBytes(4).toString('hex');
const TAG = `pharos-test/postgres-base:${ID}`;
const DB_IMAGE = `pharos-test/postgres:${ID}`;
const NETWORK = `pharos-test-db-${ID}`;
const SERVER = `pharos-test-db-${ID}`;
let secrets: string;
const run = async (...args: string[]) => {
  const r = await exec('docker', ['run', '--rm', TAG, ...args]);
  return { code: r.code, out: r.stdout.toString('utf8').trim(), err: r.stderr.trim() };
};

beforeAll(async () => {
  await requireDocker();
  await ensureBaseImage();
});
afterAll(async () => {
  await exec('docker', ['rm', '--force', '--volumes', SERVER]);
  await exec('docker', ['network', 'rm', NETWORK]);
  await exec('docker', ['image', 'rm', TAG, DB_IMAGE]);
  if (secrets !== undefined) await rm(secrets, { recursive: true, force: true });
});

describe('ensurePostgresBaseImage()', () => {
  it('imports the image with the hash of its inputs as a label, then finds it present', async () => {
    expect(await ensurePostgresBaseImage(TAG)).toBe('imported');
    const label = (
      await exec('docker', ['image', 'inspect', '--format', `{{index .Config.Labels "${INPUTS_LABEL}"}}`, TAG])
    ).stdout
      .toString()
      .trim();
    expect(label).toBe(await inputsHash(await postgresBaseInputs()));
    expect(await ensurePostgresBaseImage(TAG)).toBe('present');
  });

  it("runs Debian's PostgreSQL 15 tools and drops to the postgres user, UID 70 (no supplementary groups)", async () => {
    expect(await run('postgres', '--version')).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^postgres \(PostgreSQL\) 15\.\d+ \(Debian/),
    });
    expect(await run('psql', '--version')).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^psql \(PostgreSQL\) 15\./),
    });
    expect(await run('/usr/bin/setpriv', '--reuid=70', '--regid=70', '--clear-groups', 'id')).toMatchObject({
      code: 0,
      out: 'uid=70(postgres) gid=70(postgres)',
    });
  });

  it('makes the image again when the tag holds an image without that hash (another maker, or another host package set)', async () => {
    await exec('docker', ['image', 'tag', BASE_IMAGE, TAG]);
    expect(await ensurePostgresBaseImage(TAG)).toBe('imported');
    expect((await run('pg_isready', '--version')).code).toBe(0);
  });
});

describe("the example's database image (docker/postgres)", () => {
  beforeAll(async () => {
    await execOk(
      exec,
      'docker',
      ['build', '--quiet', '--file', join(EXAMPLE_DIR, 'docker/postgres/Dockerfile'), '--tag', DB_IMAGE, EXAMPLE_DIR],
      { env: { ...process.env, DOCKER_BUILDKIT: '0' } },
    );
    await execOk(exec, 'docker', ['network', 'create', NETWORK]);
    secrets = await mkdtemp(join(tmpdir(), 'pharos-db-secret-'));
  });

  it('refuses to initialise an empty data folder without a password (exit 2)', async () => {
    const r = await exec('docker', ['run', '--rm', DB_IMAGE]);
    expect([r.code, r.stderr.trim().split('\n').at(-1)]).toEqual([
      2,
      'db.sh: cannot initialise /var/lib/postgresql/data: POSTGRES_PASSWORD (or POSTGRES_PASSWORD_FILE) is empty',
    ]);
  });

  it('takes the password from POSTGRES_PASSWORD_FILE, accepts it over the network, refuses another, and stops fast and clean on SIGTERM', async () => {
    await writeFile(join(secrets, 'password'), 'from-a-file\n', { mode: 0o644 });
    await execOk(exec, 'docker', [
      'run',
      '--detach',
      '--name',
      SERVER,
      '--network',
      NETWORK,
      '--volume',
      `${secrets}:/run/secrets:ro`,
      '--env',
      'POSTGRES_PASSWORD_FILE=/run/secrets/password',
      DB_IMAGE,
    ]);
    for (
      let i = 0;
      (
        await exec('docker', [
          'exec',
          SERVER,
          'pg_isready',
          '--quiet',
          '--host=/var/run/postgresql',
          '--username=postgres',
        ])
      ).code !== 0;
      i++
    ) {
      if (i > 60)
        throw new Error(`the database never became ready: ${(await exec('docker', ['logs', SERVER])).stderr}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const login = (password: string) =>
      exec('docker', [
        'run',
        '--rm',
        '--network',
        NETWORK,
        '--env',
        `PGPASSWORD=${password}`,
        '--entrypoint',
        'psql',
        DB_IMAGE,
        '--no-psqlrc',
        '--tuples-only',
        '--no-align',
        `--host=${SERVER}`,
        '--username=postgres',
        '--command',
        'SELECT current_user',
      ]);
    const ok = await login('from-a-file');
    expect([ok.code, ok.stdout.toString().trim()], ok.stderr).toEqual([0, 'postgres']);
    expect((await login('guessed')).stderr).toMatch(/password authentication failed for user "postgres"/);
    const started = Date.now();
    await execOk(exec, 'docker', ['stop', '--time', '10', SERVER]);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(
      (await exec('docker', ['inspect', '--format', '{{.State.ExitCode}}', SERVER])).stdout.toString().trim(),
    ).toBe('0');
    expect((await exec('docker', ['logs', SERVER])).stderr).toContain('database system is shut down');
  });
});
