import { createHash, createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/** base64(SHA-256(SPKI DER)): the key hint cosign and sigstore-go write into public-key bundles. */
export function keyHint(key: KeyObject | string): string {
  const object = typeof key === 'string' ? createPublicKey(key) : key;
  const der = object.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64');
}
