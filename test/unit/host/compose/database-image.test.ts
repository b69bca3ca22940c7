import { describe, expect, it } from 'vitest';
import { chooseDatabaseImage } from '../../../../scripts/lib/host/compose/database-image.ts';
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

describe('chooseDatabaseImage() (commit channels)', () => {
  it('keeps the running database image when nothing about it changed on the same UTC day', () => {
    expect(chooseDatabaseImage(base)).toEqual({ image: running, reason: 'kept' });
  });
  it('takes the new image when docker/postgres/ or its build workflow changed', () => {
    expect(chooseDatabaseImage({ ...base, inputsChanged: true })).toEqual({ image: fresh, reason: 'inputs-changed' });
  });
  it('takes the new image for the first commit of a later UTC day', () => {
    expect(chooseDatabaseImage({ ...base, targetDay: '2026-11-30' })).toEqual({ image: fresh, reason: 'new-day' });
  });
  it('keeps the running image for a commit dated earlier than the running one', () => {
    expect(chooseDatabaseImage({ ...base, targetDay: '2026-11-28' }).reason).toBe('kept');
  });
  it('takes the new image when the database service definition changed', () => {
    expect(chooseDatabaseImage({ ...base, serviceChanged: true })).toEqual({ image: fresh, reason: 'service-changed' });
  });
  it('takes the new image when there is no usable record of the running one', () => {
    expect(chooseDatabaseImage({ ...base, previousImage: undefined })).toEqual({ image: fresh, reason: 'no-record' });
    expect(chooseDatabaseImage({ ...base, previousDay: undefined }).reason).toBe('no-record');
  });
  it('takes the new image when the channel asks for refreshDatabaseImage, whatever else holds', () => {
    expect(chooseDatabaseImage({ ...base, refreshRequested: true })).toEqual({
      image: fresh,
      reason: 'refresh-requested',
    });
  });
});
