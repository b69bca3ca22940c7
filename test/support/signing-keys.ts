import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestKeyPair {
  readonly privatePem: string;
  readonly publicPem: string;
}

/** A fresh P-256 key pair (PKCS#8 private, SPKI public), as a site would make with openssl. */
export function makeKeyPair(): TestKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** Writes the pair as `<name>.key` (0600) and `<name>.pub` in `dir`; returns both paths. */
export function writeKeyPair(
  dir: string,
  name: string,
  pair: TestKeyPair = makeKeyPair(),
): { key: string; pub: string; pair: TestKeyPair } {
  const key = join(dir, `${name}.key`);
  const pub = join(dir, `${name}.pub`);
  writeFileSync(key, pair.privatePem, { mode: 0o600 });
  writeFileSync(pub, pair.publicPem);
  return { key, pub, pair };
}
