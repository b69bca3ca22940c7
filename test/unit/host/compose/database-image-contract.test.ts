import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  chooseDatabaseImage,
  DATABASE_PATHS,
  DATABASE_VARIABLE,
} from '../../../../scripts/lib/host/compose/database-image.ts';
import type { DatabaseImageInput } from '../../../../scripts/lib/host/compose/database-image.ts';

const running = `r.example/pharos/postgres@sha256:${'a'.repeat(64)}`;
const fresh = `r.example/pharos/postgres@sha256:${'b'.repeat(64)}`;
const base: DatabaseImageInput = {
  channelImage: fresh,
  previousImage: running,
  refreshRequested: false,
  inputsChanged: false,
  serviceChanged: false,
  previousDay: '2026-11-29',
  targetDay: '2026-11-29',
};

describe('the database image of a commit channel', () => {
  it("is the seed's HEPHAESTUS_IMAGE_POSTGRES, built from docker/postgres/ and its workflow", () => {
    expect(DATABASE_VARIABLE).toBe('HEPHAESTUS_IMAGE_POSTGRES');
    expect(DATABASE_PATHS[0]).toBe('docker/postgres/');
  });

  it('keys on the shipped workflows that build the image a commit channel pins: each push to main that publishes', () => {
    const root = join(import.meta.dirname, '..', '..', '..', '..');
    const dir = join(root, '.github', 'workflows');
    const publishing = readdirSync(dir)
      .filter((file) => {
        const text = readFileSync(join(dir, file), 'utf8');
        const on = (parse(text) as { on: { push?: { branches?: string[] } } }).on;
        return on.push?.branches?.includes('main') === true && /build-changed/.test(text);
      })
      .map((file) => `.github/workflows/${file}`);
    expect(publishing.length).toBeGreaterThan(0);
    expect(DATABASE_PATHS.filter((p) => p.startsWith('.github/'))).toEqual(publishing);
    for (const path of DATABASE_PATHS)
      expect(existsSync(join(root, path)) || path === 'docker/postgres/', path).toBe(true);
  });

  it('the first reason that holds is the one reported, in the order refresh, no record, inputs, service, day', () => {
    const all = {
      ...base,
      refreshRequested: true,
      previousImage: undefined,
      inputsChanged: true,
      serviceChanged: true,
      targetDay: '2026-11-30',
    };
    expect(chooseDatabaseImage(all).reason).toBe('refresh-requested');
    expect(chooseDatabaseImage({ ...all, refreshRequested: false }).reason).toBe('no-record');
    expect(chooseDatabaseImage({ ...all, refreshRequested: false, previousImage: running }).reason).toBe(
      'inputs-changed',
    );
    expect(
      chooseDatabaseImage({ ...all, refreshRequested: false, previousImage: running, inputsChanged: false }).reason,
    ).toBe('service-changed');
    expect(
      chooseDatabaseImage({
        ...all,
        refreshRequested: false,
        previousImage: running,
        inputsChanged: false,
        serviceChanged: false,
      }),
    ).toEqual({ image: fresh, reason: 'new-day' });
  });

  it('a refresh takes the fresh image even with no record of the running one', () => {
    expect(
      chooseDatabaseImage({ ...base, refreshRequested: true, previousImage: undefined, previousDay: undefined }),
    ).toEqual({ image: fresh, reason: 'refresh-requested' });
  });
});
