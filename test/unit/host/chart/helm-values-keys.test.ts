// chart.yaml is read as Helm reads values (YAML 1.1 merge keys, aliases, !!binary keys, every document): a host-owned
// key set by any of those routes is refused, and a file Helm would read differently is refused, never guessed at.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkUserValues } from '../../../../scripts/lib/host/chart/chart-values.ts';
import { helmValuesKeys } from '../../../../scripts/lib/host/chart/helm-values-keys.ts';

const keys = (text: string) => [...helmValuesKeys(Buffer.from(text))].sort();

function etc(text: string | Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'chart-etc-keys-'));
  writeFileSync(join(dir, 'chart.yaml'), text);
  chmodSync(join(dir, 'chart.yaml'), 0o600);
  return dir;
}

describe('helmValuesKeys(): the top-level keys Helm merges from a values file', () => {
  it.each([
    ['a merge key', '<<: {images: {HEPHAESTUS_IMAGE_API: evil}}\n', ['images']],
    ['a merge of an alias', 'base: &b {images: {A: evil}}\n<<: *b\n', ['base', 'images']],
    ['a merge of a list of maps', '<<: [{a: 1}, {release: {name: v9}}]\n', ['a', 'release']],
    ['an explicitly tagged merge', '!!merge <<: {images: 1}\n', ['images']],
    ['a nested merge reached through an alias', 'a: &x {<<: {images: 1}}\n<<: *x\n', ['a', 'images']],
    ['a !!binary key (go-yaml decodes it to its text)', '!!binary aW1hZ2Vz: {A: evil}\n', ['images']],
    ['an alias used as a key', 'x: &k images\n*k : {A: evil}\n', ['images', 'x']],
    [
      'a second document (Helm merges them all)',
      'worker: {replicas: 2}\n---\nimages: {A: evil}\n',
      ['images', 'worker'],
    ],
    ['a separator with a comment', 'a: 1\n--- # next\nrelease: x\n', ['a', 'release']],
    ['a quoted "<<", which is just a key', '"<<": {images: 1}\n', ['<<']],
    ['an empty document', '---\n---\nworker: {}\n', ['worker']],
  ])('%s', (_what, text, expected) => {
    expect(keys(text)).toEqual(expected);
  });

  it.each([
    ['a separator with content after it', 'a: 1\n--- images: x\n', /invalid YAML document separator/],
    ['a duplicate key', 'images: 1\nimages: 2\n', /unique|duplicate/i],
    ['UTF-16', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('images: 1\n', 'utf16le')]), /UTF-16/],
    ['a NUL byte', 'a: "x\0"\n', /NUL/],
    ['a list', '- a\n', /expected a map of Helm values, got a list/],
  ])('refuses %s', (_what, text, message) => {
    expect(() => helmValuesKeys(Buffer.from(text))).toThrow(message);
  });
});

describe('checkUserValues() refuses images or release set through YAML merge keys (exit 2)', () => {
  it.each([
    ['<<: {images: {HEPHAESTUS_IMAGE_API: "ghcr.io/mallory/api@sha256:0"}}\n', 'images'],
    ['defaults: &d {name: v9.9.9}\nrelease:\n  <<: *d\n', 'release'],
    ['worker: {replicas: 1}\n---\n!!binary aW1hZ2Vz: {A: x}\n', 'images'],
  ])('%j', async (text, key) => {
    const error: unknown = await checkUserValues(etc(text)).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 2, code: 'values' });
    expect((error as Error).message).toContain(`it sets "${key}", which only the host writes`);
  });
});
