import type { IdentityPin } from './trust-policy.ts';

/** The compiled form of an identity pattern: anchored at both ends, so a pin can never match a prefix or suffix. */
export function identityRegExp(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, 'u');
}

/** Exact string equality for a plain pin; a full-string match for a pattern. Pure. */
export function identityMatches(pin: IdentityPin, san: string | undefined): boolean {
  if (san === undefined) return false;
  return typeof pin === 'string' ? san === pin : identityRegExp(pin.pattern).test(san);
}

export function describePin(pin: IdentityPin): string {
  return typeof pin === 'string' ? `"${pin}"` : `pattern /^(?:${pin.pattern})$/`;
}
