import { describe, expect, it } from 'vitest';
import { checkStackImages } from '../../../../scripts/lib/host/compose/check-stack-images.ts';
import { parseRenderedStack, rawServiceImages } from '../../../../scripts/lib/host/compose/stack-config.ts';

const api = `127.0.0.1:5000/pharos/api@sha256:${'1'.repeat(64)}`;
const worker = `127.0.0.1:5000/pharos/worker@sha256:${'2'.repeat(64)}`;
const lock = { HEPHAESTUS_IMAGE_API: api, HEPHAESTUS_IMAGE_WORKER: worker };

function check(raw: string, rendered: Record<string, string | undefined>) {
  const text = `services:\n${Object.entries(rendered)
    .map(([name, image]) => `  ${name}:\n${image === undefined ? '    build: .\n' : `    image: "${image}"\n`}`)
    .join('')}`;
  return () =>
    checkStackImages(
      'docker/compose.app.yaml',
      rawServiceImages(raw, 'compose.app.yaml'),
      parseRenderedStack(text, 'rendered'),
      lock,
      'v1.0.0',
    );
}

describe('checkStackImages()', () => {
  it('accepts each service rendered to the digest of its own variable', () => {
    const raw =
      'services:\n  api:\n    image: ${HEPHAESTUS_IMAGE_API}\n  worker:\n    image: $HEPHAESTUS_IMAGE_WORKER\n';
    expect(check(raw, { api, worker })().map((u) => u.variable)).toEqual([
      'HEPHAESTUS_IMAGE_API',
      'HEPHAESTUS_IMAGE_WORKER',
    ]);
  });
  it('refuses a tag written in the stack file', () => {
    expect(
      check('services:\n  api:\n    image: 127.0.0.1:5000/pharos/api:1.0\n', { api: '127.0.0.1:5000/pharos/api:1.0' }),
    ).toThrow(/services\.api\.image: it is "127\.0\.0\.1:5000\/pharos\/api:1\.0"/);
  });
  it('refuses a literal digest, even one the lock pins', () => {
    expect(check(`services:\n  api:\n    image: ${api}\n`, { api })).toThrow(
      /a host runs only \$\{HEPHAESTUS_IMAGE_\*\} digests/,
    );
  });
  it('refuses a variable with a default, which could render a tag', () => {
    expect(check('services:\n  api:\n    image: ${HEPHAESTUS_IMAGE_API:-pharos/api:latest}\n', { api })).toThrow(
      /services\.api\.image/,
    );
  });
  it('refuses a variable the lock does not pin', () => {
    expect(check('services:\n  extra:\n    image: ${HEPHAESTUS_IMAGE_EXTRA}\n', { extra: '' })).toThrow(
      /"HEPHAESTUS_IMAGE_EXTRA" is not in the lock of v1\.0\.0/,
    );
  });
  it("refuses another service's digest under a service's variable", () => {
    expect(check('services:\n  worker:\n    image: ${HEPHAESTUS_IMAGE_API}\n', { worker: api })().length).toBe(1);
    expect(check('services:\n  worker:\n    image: ${HEPHAESTUS_IMAGE_WORKER}\n', { worker: api })).toThrow(
      /is pinned for "HEPHAESTUS_IMAGE_API", not "HEPHAESTUS_IMAGE_WORKER"/,
    );
  });
  it('refuses a rendered image that is not a digest reference', () => {
    expect(check('services:\n  api:\n    image: ${HEPHAESTUS_IMAGE_API}\n', { api: 'pharos/api:latest' })).toThrow(
      /"pharos\/api:latest" is not a digest reference/,
    );
  });
  it('refuses a service that would be built on the host', () => {
    expect(check('services:\n  api:\n    build: .\n', { api: undefined })).toThrow(
      /no image \(a build is not allowed on a host\)/,
    );
  });
});
