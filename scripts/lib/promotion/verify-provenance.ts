import { bundleFromJSON, isBundleWithDsseEnvelope } from '@sigstore/bundle';
import { Verifier, toSignedEntity, toTrustMaterial } from '@sigstore/verify';
import { z } from 'zod';
import type { TrustedRoot } from '../signing/trusted-root.ts';
import type { AttestationSource } from './attestation-source.ts';
import { PromotionError } from './promotion-error.ts';

/** Whose provenance counts: this repository's CI workflow on main, certified by the GitHub Actions OIDC issuer. */
export interface ProvenancePolicy {
  /** `owner/name` of this repository. */
  readonly repository: string;
  /** The CI workflow file that builds and attests images, e.g. `ci.yml`. */
  readonly workflow: string;
  /** The ref CI ran on, e.g. `refs/heads/main`. */
  readonly ref: string;
  readonly issuer: string;
  readonly trustedRoot: TrustedRoot;
}

const IN_TOTO = 'application/vnd.in-toto+json';
const SLSA_PROVENANCE = /^https:\/\/slsa\.dev\/provenance\/v1$/;
// Fulcio's certificate extensions: Source Repository URI and Source Repository Digest (the commit CI built).
const SOURCE_REPOSITORY_URI = '1.3.6.1.4.1.57264.1.12';
const SOURCE_REPOSITORY_DIGEST = '1.3.6.1.4.1.57264.1.13';

const statementSchema = z.object({
  _type: z.string().regex(/^https:\/\/in-toto\.io\/Statement\/v(0\.1|1)$/),
  subject: z.array(z.object({ name: z.string(), digest: z.record(z.string(), z.string()) })).min(1),
  predicateType: z.string(),
});

/** A DER UTF8String (Fulcio's v2 extensions) or raw text (its legacy ones). */
function extensionText(value: Buffer): string {
  // Stryker disable next-line ConditionalExpression,StringLiteral: extensions .12 and .13 are Fulcio v2 ones, always DER UTF8Strings; the raw-text read is defensive
  if (value[0] !== 0x0c) return value.toString('utf8');
  const first = value[1] ?? 0;
  const [length, start] =
    // Stryker disable next-line EqualityOperator: 0x80 (indefinite length) is not DER, and Fulcio never writes it
    first < 0x80 ? [first, 2] : first === 0x81 ? [value[2] ?? 0, 3] : [((value[2] ?? 0) << 8) | (value[3] ?? 0), 4];
  return value.subarray(start, start + length).toString('utf8');
}

/** Why this bundle is not the provenance of `digest` built by `policy`'s workflow at `commit`; undefined when it is. */
export function attestationProblem(
  bytes: Uint8Array,
  digest: string,
  commit: string,
  policy: ProvenancePolicy,
): string | undefined {
  let bundle;
  try {
    bundle = bundleFromJSON(JSON.parse(Buffer.from(bytes).toString('utf8')));
  } catch (error) {
    return `not a Sigstore bundle (${(error as Error).message})`;
  }
  if (!isBundleWithDsseEnvelope(bundle)) return 'not an in-toto attestation (no DSSE envelope)';
  const envelope = bundle.content.dsseEnvelope;
  if (envelope.payloadType !== IN_TOTO) return `payload type "${envelope.payloadType}" is not ${IN_TOTO}`;
  let signer;
  try {
    // Stryker disable next-line ObjectLiteral: sigstore-js's defaults are these same thresholds; they are spelled out so an upgrade cannot lower them
    const verifier = new Verifier(toTrustMaterial(policy.trustedRoot), {
      tlogThreshold: 1,
      ctlogThreshold: 1,
      timestampThreshold: 1,
    });
    signer = verifier.verify(toSignedEntity(bundle), { extensions: { issuer: policy.issuer } });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // Stryker disable next-line ConditionalExpression,StringLiteral: sigstore-js's VerificationError always carries a string code
    return `signature does not verify (${typeof code === 'string' ? `${code}: ` : ''}${(error as Error).message})`;
  }
  // sigstore-js would read a SAN pin as an unanchored regular expression: compare exactly here.
  const expected = `https://github.com/${policy.repository}/.github/workflows/${policy.workflow}@${policy.ref}`;
  // Stryker disable next-line OptionalChaining: a keyless bundle that verified has a certificate identity
  const san = signer.identity?.subjectAlternativeName;
  if (san !== expected) return `signed by "${san ?? ''}", not by "${expected}"`;
  // Stryker disable next-line OptionalChaining: a keyless bundle that verified has a certificate identity, and every parsed extension an OID
  const oid = (id: string) => signer.identity?.oids?.find((o) => o.oid?.id.join('.') === id);
  const source = oid(SOURCE_REPOSITORY_URI);
  const sourceUri = source === undefined ? undefined : extensionText(Buffer.from(source.value));
  if (sourceUri !== `https://github.com/${policy.repository}`)
    return `built from repository "${sourceUri ?? '(none)'}", not https://github.com/${policy.repository}`;
  const built = oid(SOURCE_REPOSITORY_DIGEST);
  const builtCommit = built === undefined ? undefined : extensionText(Buffer.from(built.value));
  if (builtCommit !== commit) return `built at commit ${builtCommit ?? '(none)'}, not at ${commit}`;
  // sigstore-js does not compare a DSSE payload with the artifact: the statement's subject must name this digest.
  let statement;
  try {
    statement = statementSchema.parse(JSON.parse(Buffer.from(envelope.payload).toString('utf8')));
  } catch (error) {
    return `in-toto statement is unreadable (${(error as Error).message.split('\n')[0]})`;
  }
  if (!SLSA_PROVENANCE.test(statement.predicateType))
    return `predicate type "${statement.predicateType}" is not SLSA provenance v1`;
  const [algorithm, hex] = digest.split(':');
  // A digest without "<algorithm>:" has no hex: it must match no subject (every missing key would equal it).
  if (hex === undefined) return `statement subjects do not include ${digest}`;
  // Stryker disable next-line ConditionalExpression: split() always yields a first element, so algorithm is defined
  if (!statement.subject.some((s) => algorithm !== undefined && s.digest[algorithm] === hex))
    return `statement subjects do not include ${digest}`;
  return undefined;
}

/** Refuses, before anything is signed, a commit whose first-party images lack provenance from this repository's CI at that commit. */
export async function verifyImagesProvenance(
  images: Readonly<Record<string, string>>,
  commit: string,
  source: AttestationSource,
  policy: ProvenancePolicy,
): Promise<void> {
  for (const [variable, ref] of Object.entries(images)) {
    const digest = ref.slice(ref.indexOf('@') + 1);
    const bundles = await source.attestationsFor(digest);
    const problems = bundles.map((bundle) => attestationProblem(bundle, digest, commit, policy));
    if (problems.some((p) => p === undefined)) continue;
    const why = problems.length === 0 ? 'no provenance attestation' : problems.join('; ');
    throw new PromotionError(
      'provenance',
      `Cannot promote ${commit.slice(0, 12)}: ${variable} (${ref}) has no provenance from ${policy.repository}'s ${policy.workflow} at this commit: ${why}`,
      { details: { variable, image: ref, commit } },
    );
  }
}
