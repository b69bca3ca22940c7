import { describe, expect, it } from 'vitest';
import { keepReason } from '../../../scripts/lib/host/keep-reason.ts';
import type { ReleaseFolder } from '../../../scripts/lib/host/keep-reason.ts';

const folder = (name: string, over: Partial<ReleaseFolder> = {}): ReleaseFolder => ({
  name,
  registered: true,
  locked: false,
  holdsFiles: false,
  tooling: false,
  ...over,
});

describe('keepReason(): the release folders pruning keeps', () => {
  it('removes a clean, unlocked worktree of the cache that is neither applied, previous nor the tooling', () => {
    expect(keepReason(folder('v1.0.0'), 'v1.2.0', 'v1.1.0')).toBeUndefined();
    expect(keepReason(folder('v1.0.0'), 'v1.2.0', undefined)).toBeUndefined();
  });

  it('keeps the release just applied and the previous one, whatever else is true of them', () => {
    expect(keepReason(folder('v1.2.0', { registered: false, holdsFiles: true }), 'v1.2.0', 'v1.1.0')).toBe('applied');
    expect(keepReason(folder('v1.1.0', { tooling: true, locked: true }), 'v1.2.0', 'v1.1.0')).toBe('previous');
  });

  it('keeps the folder the tooling link points at', () => {
    expect(keepReason(folder('v0.9.0', { tooling: true }), 'v1.2.0', 'v1.1.0')).toBe('tooling');
  });

  it("never removes a folder the cache does not know as a worktree (an operator's copy)", () => {
    expect(keepReason(folder('v0.9.0', { registered: false }), 'v1.2.0', 'v1.1.0')).toBe('not a worktree of the cache');
  });

  it('keeps a locked worktree', () => {
    expect(keepReason(folder('v0.9.0', { locked: true }), 'v1.2.0', 'v1.1.0')).toBe('locked');
  });

  it("keeps a worktree holding files absent from its release (an ACME store, an operator's notes)", () => {
    expect(keepReason(folder('v0.9.0', { holdsFiles: true }), 'v1.2.0', 'v1.1.0')).toBe(
      'holds files absent from its release',
    );
  });

  it('a host with no previous release does not keep a folder for lack of one', () => {
    expect(keepReason(folder(''), 'v1.2.0', undefined)).toBeUndefined();
  });
});
