import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHostConfig, parseApplied, parseEnvFile, readApplied, HostError } from '../../../scripts/lib/host/index.ts';
import { rejected } from '../../support/thrown.ts';

function etcWith(text: string, mode = 0o600): string {
  const dir = mkdtempSync(join(tmpdir(), 'hephaestus-etc-'));
  writeFileSync(join(dir, 'reconcile.env'), text);
  chmodSync(join(dir, 'reconcile.env'), mode);
  return dir;
}

describe('loadHostConfig', () => {
  it('reads reconcile.env and lets the environment override it', async () => {
    const etc = etcWith(
      '# host\nHEPHAESTUS_CHANNEL=staging\nHEPHAESTUS_REPOSITORY="/srv/platform.git"\nHEPHAESTUS_TRUSTED_KEYS=/etc/keys.pem\n',
    );
    const config = await loadHostConfig({ HEPHAESTUS_ETC: etc, HEPHAESTUS_CHANNEL: 'production' });
    expect(config).toMatchObject({
      HEPHAESTUS_CHANNEL: 'production',
      HEPHAESTUS_REPOSITORY: '/srv/platform.git',
      HEPHAESTUS_ROOT: '/var/lib/hephaestus',
      HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL: false,
    });
  });

  it('refuses a configuration file readable by others', async () => {
    const etc = etcWith('HEPHAESTUS_CHANNEL=staging\n', 0o644);
    expect((await rejected(HostError, () => loadHostConfig({ HEPHAESTUS_ETC: etc }))).message).toMatch(
      /mode 644 must be 600/,
    );
  });

  it('names the variable and value that are wrong, with exit status 2', async () => {
    const error = await rejected(HostError, () =>
      loadHostConfig({
        HEPHAESTUS_ETC: '/nonexistent',
        HEPHAESTUS_CHANNEL: 'Prod!',
        HEPHAESTUS_REPOSITORY: 'r',
        HEPHAESTUS_TRUSTED_KEYS: 'k',
      }),
    );
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(/HEPHAESTUS_CHANNEL: .*\(value "Prod!"\)/);
  });

  it('refuses a repository that git would read as an option', async () => {
    const error = await rejected(HostError, () =>
      loadHostConfig({
        HEPHAESTUS_ETC: '/nonexistent',
        HEPHAESTUS_CHANNEL: 'staging',
        HEPHAESTUS_REPOSITORY: '--upload-pack=touch /tmp/x',
        HEPHAESTUS_TRUSTED_KEYS: 'k',
      }),
    );
    expect(error.message).toMatch(/HEPHAESTUS_REPOSITORY: must not start with "-"/);
  });

  it('needs trusted keys or a promotion identity', async () => {
    const error = await rejected(HostError, () =>
      loadHostConfig({ HEPHAESTUS_ETC: '/nonexistent', HEPHAESTUS_CHANNEL: 'staging', HEPHAESTUS_REPOSITORY: 'r' }),
    );
    expect(error.message).toMatch(/HEPHAESTUS_PROMOTE_IDENTITY/);
  });

  it('reads HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL=1 as on', async () => {
    const config = await loadHostConfig({
      HEPHAESTUS_ETC: '/nonexistent',
      HEPHAESTUS_CHANNEL: 'staging',
      HEPHAESTUS_REPOSITORY: 'r',
      HEPHAESTUS_PROMOTE_IDENTITY: 'https://x',
      HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL: '1',
    });
    expect(config.HEPHAESTUS_ACCEPT_SCHEMA1_CHANNEL).toBe(true);
  });

  it('refuses a line that is not KEY=value, naming the line', () => {
    expect(() => parseEnvFile('HEPHAESTUS_CHANNEL=staging\nexport X\n', '/etc/hephaestus/reconcile.env')).toThrow(
      /reconcile\.env": line 2/,
    );
  });
});

describe('applied.json', () => {
  const sha = (c: string) => c.repeat(40);

  it('reads the current format with its channel identity', () => {
    const record = parseApplied(
      Buffer.from(
        JSON.stringify({
          schema: 2,
          release: 'v1.2.3',
          commit: sha('a'),
          channelCommit: sha('b'),
          channelVersion: 17,
          channelIdentity: 'f'.repeat(64),
          appliedAt: '2026-11-29T10:00:00Z',
          previous: { release: 'v1.2.2', commit: sha('c') },
        }),
      ),
      'applied.json',
    );
    expect(record.format).toBe(2);
  });

  it("reads the seed's format, which has no schema and no channel identity", () => {
    const record = parseApplied(
      Buffer.from(
        JSON.stringify({
          commit: sha('a'),
          channelCommit: sha('b'),
          appliedAt: '2026-11-29T10:00:00Z',
          previous: null,
        }),
      ),
      'applied.json',
    );
    expect(record.format).toBe('legacy');
  });

  it('a missing file means first install; a corrupt one stops the tick', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hephaestus-root-'));
    expect(await readApplied(root)).toBeUndefined();
    writeFileSync(join(root, 'applied.json'), '{"schema": 2, "commit": 5}');
    const error = await rejected(HostError, () => readApplied(root));
    expect(error.code).toBe('applied-corrupt');
    expect(error.message).toMatch(/applied\.json: commit: .*\(value 5\)/);
  });
});
