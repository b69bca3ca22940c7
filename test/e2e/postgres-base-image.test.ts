// The example's PostgreSQL base image made from this machine's Debian files with the real Docker Engine: imported once,
// kept while its inputs hash matches, made again when the tag holds anything else.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { INPUTS_LABEL, ensurePostgresBaseImage, inputsHash, postgresBaseInputs } from '../../scripts/lib/demo/postgres-base-image.ts';
import { BASE_IMAGE, ensureBaseImage, requireDocker } from '../support/base-image.ts';

const TAG = `pharos-test/postgres-base:${randomBytes(4).toString('hex')}`;
const run = async (...args: string[]) => {
  const r = await exec('docker', ['run', '--rm', TAG, ...args]);
  return { code: r.code, out: r.stdout.toString('utf8').trim(), err: r.stderr.trim() };
};

beforeAll(async () => {
  await requireDocker();
  await ensureBaseImage();
});
afterAll(async () => {
  await exec('docker', ['image', 'rm', TAG]);
});

describe('ensurePostgresBaseImage()', () => {
  it('imports the image with the hash of its inputs as a label, then finds it present', async () => {
    expect(await ensurePostgresBaseImage(TAG)).toBe('imported');
    const label = (await exec('docker', ['image', 'inspect', '--format', `{{index .Config.Labels "${INPUTS_LABEL}"}}`, TAG])).stdout.toString().trim();
    expect(label).toBe(await inputsHash(await postgresBaseInputs()));
    expect(await ensurePostgresBaseImage(TAG)).toBe('present');
  });

  it("runs Debian's PostgreSQL 15 tools and drops to the postgres user, UID 70 (no supplementary groups)", async () => {
    expect(await run('postgres', '--version')).toMatchObject({ code: 0, out: expect.stringMatching(/^postgres \(PostgreSQL\) 15\.\d+ \(Debian/) });
    expect(await run('psql', '--version')).toMatchObject({ code: 0, out: expect.stringMatching(/^psql \(PostgreSQL\) 15\./) });
    expect(await run('/usr/bin/setpriv', '--reuid=70', '--regid=70', '--clear-groups', 'id')).toMatchObject({ code: 0, out: 'uid=70(postgres) gid=70(postgres)' });
  });

  it('makes the image again when the tag holds an image without that hash (another maker, or another host package set)', async () => {
    await exec('docker', ['image', 'tag', BASE_IMAGE, TAG]);
    expect(await ensurePostgresBaseImage(TAG)).toBe('imported');
    expect((await run('pg_isready', '--version')).code).toBe(0);
  });
});
