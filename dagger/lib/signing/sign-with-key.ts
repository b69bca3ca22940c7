import { createHash, createPrivateKey, createPublicKey, sign as signBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { bundleToJSON, toMessageSignatureBundle } from '@sigstore/bundle';
import { keyHint } from './key-hint.ts';
import { VerificationError } from './signing-error.ts';

/** Loads a P-256 private key from PKCS#8 PEM; any other key is refused before it signs anything. */
export function loadSigningKey(pem: string | Buffer, file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch (cause) {
    throw new VerificationError('trust-config', `Cannot read signing key "${file}": not a PEM private key`, {
      cause,
      details: { file },
    });
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new VerificationError(
      'trust-config',
      `Cannot use signing key "${file}": expected an ECDSA P-256 key, got ${key.asymmetricKeyType} ${key.asymmetricKeyDetails?.namedCurve ?? ''}`.trim(),
      { details: { file } },
    );
  }
  return key;
}

/** Signs exact bytes into a v0.3 message-signature bundle (JSON text) carrying the cosign key hint. */
export function signWithKey(artifact: Uint8Array, privateKey: KeyObject): string {
  const data = Buffer.from(artifact);
  const signature = signBytes('sha256', data, privateKey);
  const bundle = toMessageSignatureBundle({
    digest: createHash('sha256').update(data).digest(),
    signature,
    keyHint: keyHint(createPublicKey(privateKey)),
  });
  return `${JSON.stringify(bundleToJSON(bundle))}\n`;
}
