// Offline keyless signing: @sigstore/mock's CA, CT log and transparency log served on 127.0.0.1, plus a trusted_root.json of our own.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fulcioHandler, initializeCA, initializeCTLog, initializeTLog, rekorHandler } from '@sigstore/mock';

export const GITHUB_ISSUER = 'https://token.actions.githubusercontent.com';

export interface MockSigstore {
  readonly fulcioURL: string;
  readonly rekorURL: string;
  /** trusted_root.json text trusting exactly this CA, CT log and transparency log. */
  readonly trustedRoot: string;
  /** An OIDC token as the CI would present it (the mock CA decodes, it does not check signatures); `claims` such as `sha` and `repository` become Fulcio's certificate extensions. */
  token(subject: string, issuer?: string, claims?: Readonly<Record<string, string>>): string;
  close(): Promise<void>;
}

function b64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export async function startMockSigstore(): Promise<MockSigstore> {
  const keyPair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ctlog = await initializeCTLog(keyPair);
  const ca = await initializeCA(keyPair, ctlog);
  const handlers = new Map<string, Awaited<ReturnType<typeof fulcioHandler>>>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const handler = handlers.get(new URL(req.url ?? '/', 'http://x').pathname);
      if (req.method !== 'POST' || handler === undefined) {
        res.writeHead(404).end();
        return;
      }
      handler.fn(Buffer.concat(chunks).toString('utf8')).then(
        ({ statusCode, response, contentType }) =>
          res.writeHead(statusCode, { 'content-type': contentType ?? 'text/plain' }).end(response),
        (error: Error) => res.writeHead(500).end(error.message),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tlog = await initializeTLog(base, keyPair);
  const fulcio = fulcioHandler(ca);
  const rekor = rekorHandler(tlog);
  handlers.set(fulcio.path, fulcio);
  handlers.set(rekor.path, rekor);
  const start = new Date(Date.now() - 3_600_000).toISOString();
  const trustedRoot = {
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [
      {
        baseUrl: base,
        hashAlgorithm: 'SHA2_256',
        publicKey: {
          rawBytes: tlog.publicKey.toString('base64'),
          keyDetails: 'PKIX_ECDSA_P256_SHA_256',
          validFor: { start },
        },
        logId: { keyId: createHash('sha256').update(tlog.publicKey).digest('base64') },
      },
    ],
    certificateAuthorities: [
      {
        subject: { organization: 'sigstore.mock', commonName: 'sigstore' },
        uri: base,
        certChain: { certificates: [{ rawBytes: Buffer.from(ca.rootCertificate.buffer).toString('base64') }] },
        validFor: { start },
      },
    ],
    ctlogs: [
      {
        baseUrl: base,
        hashAlgorithm: 'SHA2_256',
        publicKey: {
          rawBytes: ctlog.publicKey.toString('base64'),
          keyDetails: 'PKIX_ECDSA_P256_SHA_256',
          validFor: { start },
        },
        logId: { keyId: Buffer.from(ctlog.logID.buffer).toString('base64') },
      },
    ],
    timestampAuthorities: [],
  };
  return {
    fulcioURL: base,
    rekorURL: base,
    trustedRoot: `${JSON.stringify(trustedRoot, null, 2)}\n`,
    token: (subject, issuer = GITHUB_ISSUER, claims = {}) =>
      `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ ...claims, sub: subject, iss: issuer, aud: 'sigstore', exp: Math.floor(Date.now() / 1000) + 600 })}.`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
