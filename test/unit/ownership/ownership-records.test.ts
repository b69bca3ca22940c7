import { describe, expect, it } from 'vitest';
import { applyOwnershipChanges, parseOwnershipData } from '../../../scripts/lib/ownership/ownership-records.ts';

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
