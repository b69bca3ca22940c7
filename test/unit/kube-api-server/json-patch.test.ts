import { describe, expect, it } from 'vitest';
import { JsonPatchError, applyJsonPatch } from '../../support/kube-api-server/json-patch.ts';
import { applyMergePatch } from '../../support/kube-api-server/merge-patch.ts';
import { SelectorError, parseLabelSelector } from '../../support/kube-api-server/label-selector.ts';

describe('test API server patch semantics', () => {
  it('JSON patch follows RFC 6902: array insert and append, move, copy, ~0 and ~1 escapes', () => {
    const doc = { a: [1, 3], 'x/y': { 'm~n': 1 } };
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/a/1', value: 2 },
      { op: 'add', path: '/a/-', value: 4 },
      { op: 'copy', from: '/a/0', path: '/first' },
      { op: 'move', from: '/x~1y/m~0n', path: '/moved' },
      { op: 'test', path: '/a', value: [1, 2, 3, 4] },
    ]);
    expect(out).toEqual({ a: [1, 2, 3, 4], 'x/y': {}, first: 1, moved: 1 });
    expect(doc).toEqual({ a: [1, 3], 'x/y': { 'm~n': 1 } });
  });

  it('JSON patch fails as a whole: replace of a missing path, index out of range, failed test', () => {
    for (const ops of [
      [{ op: 'replace', path: '/nope', value: 1 }],
      [{ op: 'add', path: '/a/5', value: 1 }],
      [{ op: 'test', path: '/a/0', value: 9 }],
      [{ op: 'jump', path: '/a' }],
    ]) {
      expect(() => applyJsonPatch({ a: [1] }, ops)).toThrow(JsonPatchError);
    }
  });

  it('merge patch replaces arrays and deletes with null (RFC 7386 appendix A)', () => {
    expect(applyMergePatch({ a: 'b', c: { d: 'e', f: 'g' } }, { a: 'z', c: { f: null } })).toEqual({
      a: 'z',
      c: { d: 'e' },
    });
    expect(applyMergePatch({ a: [{ b: 'c' }] }, { a: [1] })).toEqual({ a: [1] });
    expect(applyMergePatch({ a: 'foo' }, 'bar')).toBe('bar');
  });

  it('label selectors refuse malformed keys and values', () => {
    for (const bad of ['a b', 'a=b c', 'in (x)', '-a=b']) expect(() => parseLabelSelector(bad)).toThrow(SelectorError);
    expect(parseLabelSelector('app.kubernetes.io/name in (a, b),!legacy')).toEqual([
      { key: 'app.kubernetes.io/name', op: 'in', values: ['a', 'b'] },
      { key: 'legacy', op: '!exists' },
    ]);
  });
});
