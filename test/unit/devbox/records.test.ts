import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyOwnershipChanges, parseOwnershipData } from '../../../scripts/lib/ownership/ownership-records.ts';
import { readReceipt, writeReceipt } from '../../../scripts/lib/target/receipt.ts';
import { appendJournal, readJournal } from '../../../scripts/lib/steps/jsonl-journal.ts';
import { kustomizeImages, rootInputs, rootInputsPatch } from '../../../scripts/lib/delivery/root-inputs.ts';
import type { Catalogue } from '../../../scripts/lib/catalogue/catalogue.ts';

const ref = `registry.pharos-build.svc.cluster.local:5000/compat-web@sha256:${'a'.repeat(64)}`;

describe('ownership records', () => {
  it('parses each key from its JSON text and writes changes back as JSON text, removing nulls', () => {
    const data = {
      revision: JSON.stringify('b'.repeat(40)),
      images: JSON.stringify({ 'compat-web': ref }),
      other: 'kept',
    };
    const records = parseOwnershipData(data, 'ConfigMap "argocd/o"');
    expect(records.revision).toBe('b'.repeat(40));
    expect(records.images).toEqual({ 'compat-web': ref });
    expect(records.delivery).toBeUndefined();
    expect(applyOwnershipChanges(data, { revision: null, images: {} })).toEqual({ images: '{}', other: 'kept' });
  });

  it('refuses an image named by tag, naming the key and value', () => {
    expect(() =>
      parseOwnershipData({ images: JSON.stringify({ web: 'reg:5000/web:latest' }) }, 'ConfigMap "argocd/o"'),
    ).toThrow(
      /ConfigMap "argocd\/o" data\.images: web: must be "<registry>\/<name>@sha256:<64 hex>" \(value "reg:5000\/web:latest"\)/,
    );
  });
});

describe('receipt', () => {
  it('round-trips through an atomic write and reports a damaged field by path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'receipt-'));
    const file = join(dir, 'receipt.json');
    expect(await readReceipt(file)).toBeUndefined();
    const receipt = {
      schema: 1 as const,
      commit: 'c'.repeat(40),
      delivered: '2026-10-14T12:00:00Z',
      images: { 'compat-web': { fingerprint: 'f'.repeat(64), reference: ref } },
    };
    await writeReceipt(file, receipt);
    expect(await readReceipt(file)).toEqual(receipt);
    await writeFile(file, JSON.stringify({ ...receipt, commit: 'HEAD' }));
    await expect(readReceipt(file)).rejects.toThrow(/receipt\.json: commit: must be a 40-hex commit \(value "HEAD"\)/);
  });
});

describe('journal', () => {
  it('appends one line per step and ignores a torn last line', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'journal-')), 'journal.jsonl');
    await appendJournal(file, { time: 't1', command: 'reconcile', run: 'r', step: 'claim' });
    await appendJournal(file, { time: 't2', command: 'reconcile', run: 'r', step: 'push' });
    await writeFile(file, `${await readFile(file, 'utf8')}{"time":"t3","st`);
    expect((await readJournal(file)).map((e) => e.step)).toEqual(['claim', 'push']);
  });
});

describe('root inputs', () => {
  const image = (name: string, application: string) => ({
    name,
    image: `pharos/${name}`,
    application,
    context: '.',
    dockerfile: 'D',
    target: undefined,
    args: [],
    platform: 'linux/amd64',
    inputs: ['.'],
    exclude: [],
    takeover: undefined,
  });
  const catalogue: Catalogue = {
    file: 'c',
    platform: 'linux/amd64',
    exclude: [],
    owned: [],
    images: [image('api', 'pharos'), image('compat-web', 'themelio-compat')],
  };
  const images = { api: `r:5000/api@sha256:${'1'.repeat(64)}`, 'compat-web': ref };

  it('passes each Application only its own images as kustomize.images, by digest', () => {
    expect(kustomizeImages(catalogue, 'pharos', images)).toEqual([`pharos/api=r:5000/api@sha256:${'1'.repeat(64)}`]);
    const inputs = rootInputs(catalogue, 'c'.repeat(40), images, 'git://g/p.git');
    expect(inputs.patches.map((p) => p.target['name'])).toEqual(['pharos', 'themelio-compat']);
    expect(JSON.parse(inputs.patches[1]?.patch ?? '')).toMatchObject({
      spec: {
        source: {
          repoURL: 'git://g/p.git',
          targetRevision: 'c'.repeat(40),
          kustomize: { images: [`pharos/compat-web=${ref}`] },
        },
      },
    });
  });

  it('patches the root only when its inputs differ', () => {
    const inputs = rootInputs(catalogue, 'c'.repeat(40), images, 'git://g/p.git');
    const patch = rootInputsPatch({ spec: { source: { targetRevision: 'old' } } }, inputs);
    expect(patch).toBeDefined();
    expect(rootInputsPatch({ spec: (patch as any).spec }, inputs)).toBeUndefined();
  });
});
