/** Where promotion finds the provenance attestations of an image digest (real: GitHub's attestations API; tests: a double). */
export interface AttestationSource {
  /** Sigstore bundle JSON bytes whose subject may be `digest` (`sha256:<hex>`); an empty list when there are none. */
  attestationsFor(digest: string): Promise<readonly Uint8Array[]>;
}
