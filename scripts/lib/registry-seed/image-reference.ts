/** A reference split as Docker's `reference.ParseNormalizedNamed` does: the registry host, the repository, the rest. */
export interface ImageReference {
  /** `docker.io` when the reference names no registry. */
  readonly host: string;
  readonly repository: string;
  /** `:<tag>`, `@sha256:<hex>` or `:<tag>@sha256:<hex>`; `:latest` when it names neither. */
  readonly suffix: string;
}

/** Pure: the first path component is a registry host when it has a `.` or `:`, or is `localhost`. */
export function splitReference(reference: string): ImageReference {
  const slash = reference.indexOf('/');
  const first = slash < 0 ? '' : reference.slice(0, slash);
  const named = first.includes('.') || first.includes(':') || first === 'localhost';
  const host = named ? first : 'docker.io';
  let rest = named ? reference.slice(slash + 1) : reference;
  if (!named && !rest.includes('/')) rest = `library/${rest}`;
  const at = rest.indexOf('@');
  const name = at < 0 ? rest : rest.slice(0, at);
  const colon = name.lastIndexOf(':');
  const repository = colon < 0 ? name : name.slice(0, colon);
  const tag = colon < 0 ? (at < 0 ? ':latest' : '') : name.slice(colon);
  return { host, repository, suffix: `${tag}${at < 0 ? '' : rest.slice(at)}` };
}

/** The reference's digest, when it names one. */
export function referenceDigest(reference: ImageReference): string | undefined {
  return /@(sha256:[0-9a-f]{64})$/.exec(reference.suffix)?.[1];
}
