import { describe, expect, it } from 'vitest';
import { expandVars } from '../../support/devbox/pharos-hooks.ts';

// The hook pods' stand-in expands container args as the kubelet does (Kubernetes' `$(VAR)` references).
describe('expandVars() expands args as Kubernetes does', () => {
  it('replaces a defined variable', () => {
    expect(expandVars('--namespace=$(POD_NAMESPACE)', { POD_NAMESPACE: 'pharos' })).toBe('--namespace=pharos');
  });

  it('leaves a reference to an undefined variable as written', () => {
    expect(expandVars('$(NOT_SET)', {})).toBe('$(NOT_SET)');
  });

  it('reads $$ as an escaped $, so $$(VAR) stays a literal reference', () => {
    expect(expandVars('$$(POD_NAMESPACE) costs $$5', { POD_NAMESPACE: 'pharos' })).toBe('$(POD_NAMESPACE) costs $5');
  });

  it('expands every reference in one pass, never the result of an expansion', () => {
    expect(expandVars('$(A)-$(B)', { A: '$(B)', B: 'b' })).toBe('$(B)-b');
  });
});
