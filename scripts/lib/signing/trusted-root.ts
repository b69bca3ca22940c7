import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { z } from 'zod';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { readFileBounded } from './read-bounded.ts';
import { VerificationError } from './signing-error.ts';

export type { TrustedRoot };

const require = createRequire(import.meta.url);
const PUBLIC_GOOD_MIRROR = 'https://tuf-repo-cdn.sigstore.dev';

// Only the envelope is checked here; TrustedRoot.fromJSON decodes the protobuf JSON fields.
const trustedRootShape = z.looseObject({
  mediaType: z.string().startsWith('application/vnd.dev.sigstore.trustedroot'),
  tlogs: z.array(z.unknown()).optional(),
  certificateAuthorities: z.array(z.unknown()).optional(),
  ctlogs: z.array(z.unknown()).optional(),
  timestampAuthorities: z.array(z.unknown()).optional(),
});

/** Decodes trusted_root.json bytes; `file` names the source in errors. */
export function parseTrustedRoot(bytes: Buffer, file: string): TrustedRoot {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (cause) {
    throw new VerificationError('trust-config', `Cannot read trusted root "${file}": not JSON`, {
      cause,
      details: { file },
    });
  }
  const shape = trustedRootShape.safeParse(json);
  if (!shape.success) {
    throw new VerificationError(
      'trust-config',
      `Cannot read trusted root:\n${describeZodIssues(file, json, shape.error).join('\n')}`,
      { details: { file } },
    );
  }
  let root: TrustedRoot;
  try {
    root = TrustedRoot.fromJSON(json);
  } catch (cause) {
    throw new VerificationError('trust-config', `Cannot read trusted root "${file}": ${(cause as Error).message}`, {
      cause,
      details: { file },
    });
  }
  return checkTrustedRoot(root, file);
}

type Validity = { readonly start?: Date | undefined; readonly end?: Date | undefined } | undefined;

/**
 * Refuses a root whose keys or CAs have no `validFor.start` (sigstore-js would treat them as valid since the beginning of
 * time) or end before they start; names every bad entry.
 */
export function checkTrustedRoot(root: TrustedRoot, file: string): TrustedRoot {
  const problems: string[] = [];
  const check = (where: string, validFor: Validity) => {
    if (validFor?.start === undefined) problems.push(`${where}.validFor.start is missing`);
    else if (validFor.end !== undefined && validFor.end.getTime() < validFor.start.getTime())
      problems.push(`${where}.validFor.end ${validFor.end.toISOString()} is before its start`);
  };
  root.tlogs.forEach((log, i) => check(`tlogs[${i}].publicKey`, log.publicKey?.validFor));
  root.ctlogs.forEach((log, i) => check(`ctlogs[${i}].publicKey`, log.publicKey?.validFor));
  root.certificateAuthorities.forEach((ca, i) => check(`certificateAuthorities[${i}]`, ca.validFor));
  root.timestampAuthorities.forEach((tsa, i) => check(`timestampAuthorities[${i}]`, tsa.validFor));
  if (problems.length > 0)
    throw new VerificationError(
      'trust-config',
      `Cannot use trusted root "${file}":\n${problems.map((p) => `  ${p}`).join('\n')}`,
      { details: { file, problems } },
    );
  return root;
}

/** An offline host's trusted_root.json (HEPHAESTUS_TRUSTED_ROOT). */
export async function loadTrustedRootFile(path: string): Promise<TrustedRoot> {
  return parseTrustedRoot(await readFileBounded(path), path);
}

/** Sigstore public-good trusted root from the TUF seed shipped in @sigstore/tuf (no network). */
export function publicGoodTrustedRoot(): TrustedRoot {
  const seedsPath = require.resolve('@sigstore/tuf/seeds.json');
  const seeds = JSON.parse(readFileSync(seedsPath, 'utf8')) as Record<string, { targets?: Record<string, string> }>;
  const encoded = seeds[PUBLIC_GOOD_MIRROR]?.targets?.['trusted_root.json'];
  if (encoded === undefined)
    throw new VerificationError('trust-config', `Cannot find trusted_root.json in "${seedsPath}"`);
  return parseTrustedRoot(Buffer.from(encoded, 'base64'), `${seedsPath}#trusted_root.json`);
}

/** A root that trusts no log or CA: public keys only, for bundles without log entries. */
export function emptyTrustedRoot(): TrustedRoot {
  return TrustedRoot.fromJSON({
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [],
    certificateAuthorities: [],
    ctlogs: [],
    timestampAuthorities: [],
  });
}
