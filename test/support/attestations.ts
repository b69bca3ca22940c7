// Provenance attestations as GitHub's attest-build-provenance makes them (DSSE, in-toto, SLSA v1), signed by the offline mock Sigstore.
import { bundleToJSON } from '@sigstore/bundle';
import { DSSEBundleBuilder, FulcioSigner, RekorWitness } from '@sigstore/sign';
import type { AttestationSource } from '../../scripts/lib/promotion/attestation-source.ts';
import type { ProvenancePolicy } from '../../scripts/lib/promotion/verify-provenance.ts';
import { parseTrustedRoot } from '../../scripts/lib/signing/index.ts';
import { GITHUB_ISSUER } from './mock-sigstore.ts';
import type { MockSigstore } from './mock-sigstore.ts';

export interface AttestationSpec {
  /** `owner/name` the workflow ran in. */
  readonly repository: string;
  readonly workflow: string;
  readonly commit: string;
  /** `sha256:<hex>` the statement names as its subject. */
  readonly digest: string;
  readonly predicateType?: string;
  /** The OIDC issuer of the CI token (default GitHub Actions'). */
  readonly issuer?: string;
  /** The token's `repository` claim (Fulcio's Source Repository URI); null leaves it out. Default: `repository`. */
  readonly sourceRepository?: string | null;
  /** The token's `sha` claim (Fulcio's Source Repository Digest); null leaves it out. Default: `commit`. */
  readonly sha?: string | null;
  /** The statement's `_type` (default in-toto Statement v1). */
  readonly statementType?: string;
  /** Extra subjects before the image's own, as `sha256:<hex>`. */
  readonly otherSubjects?: readonly string[];
  /** The DSSE payload type (default in-toto's). */
  readonly payloadType?: string;
  /** The DSSE payload itself, instead of the statement. */
  readonly payload?: string;
}

/** A Sigstore bundle (JSON bytes) over an in-toto statement, certified for the workflow at the commit. */
/** The commit, image digest and attestation of the provenance tests: acme/platform's ci.yml at that commit. */
export const COMMIT = 'c'.repeat(40);
export const DIGEST = `sha256:${'1'.repeat(64)}`;
export const RIGHT: AttestationSpec = {
  repository: 'acme/platform',
  workflow: 'ci.yml',
  commit: COMMIT,
  digest: DIGEST,
};

/** The policy that admits exactly RIGHT's workflow on refs/heads/main, trusting the mock's root. */
export function ciPolicy(mock: MockSigstore): ProvenancePolicy {
  return {
    repository: 'acme/platform',
    workflow: 'ci.yml',
    ref: 'refs/heads/main',
    issuer: GITHUB_ISSUER,
    trustedRoot: parseTrustedRoot(Buffer.from(mock.trustedRoot), 'trusted_root.json'),
  };
}

export async function provenanceBundle(mock: MockSigstore, spec: AttestationSpec): Promise<Buffer> {
  const statement = {
    _type: spec.statementType ?? 'https://in-toto.io/Statement/v1',
    subject: [...(spec.otherSubjects ?? []), spec.digest].map((d) => ({
      name: 'ghcr.io/acme/api',
      digest: { sha256: d.replace(/^sha256:/, '') },
    })),
    predicateType: spec.predicateType ?? 'https://slsa.dev/provenance/v1',
    predicate: { buildDefinition: { buildType: 'https://actions.github.io/buildtypes/workflow/v1' }, runDetails: {} },
  };
  const san = `https://github.com/${spec.repository}/.github/workflows/${spec.workflow}@refs/heads/main`;
  const claims: Record<string, string> = {};
  const sha = spec.sha === undefined ? spec.commit : spec.sha;
  const repository = spec.sourceRepository === undefined ? spec.repository : spec.sourceRepository;
  if (sha !== null) claims['sha'] = sha;
  if (repository !== null) claims['repository'] = repository;
  const token = mock.token(san, spec.issuer, claims);
  // An intoto log entry: the mock log records the proposed entry as its body, which matches an intoto body but not a dsse one.
  const builder = new DSSEBundleBuilder({
    signer: new FulcioSigner({ fulcioBaseURL: mock.fulcioURL, identityProvider: { getToken: async () => token } }),
    witnesses: [new RekorWitness({ rekorBaseURL: mock.rekorURL, entryType: 'intoto' })],
  });
  const bundle = await builder.create({
    data: Buffer.from(spec.payload ?? JSON.stringify(statement)),
    type: spec.payloadType ?? 'application/vnd.in-toto+json',
  });
  return Buffer.from(JSON.stringify(bundleToJSON(bundle)));
}

/** Attestations by subject digest, recording every lookup. */
export function attestationDouble(
  byDigest: Readonly<Record<string, readonly Buffer[]>>,
): AttestationSource & { lookups: string[] } {
  const lookups: string[] = [];
  return { lookups, attestationsFor: async (digest) => (lookups.push(digest), byDigest[digest] ?? []) };
}
