// Argo CD's `spec.source.kustomize.images` entries, read as `kustomize edit set image` reads them.
export interface ImageOverride {
  readonly name: string;
  readonly newName?: string;
  readonly newTag?: string;
  readonly digest?: string;
}

export interface ImageRef {
  readonly name: string;
  readonly tag?: string;
  readonly digest?: string;
}

/** `registry:5000/a/b:tag@sha256:…` → name, tag, digest (a ':' before the last '/' is a port). */
export function parseImageRef(image: string): ImageRef {
  const at = image.indexOf('@');
  const digest = at >= 0 ? image.slice(at + 1) : undefined;
  const rest = at >= 0 ? image.slice(0, at) : image;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/'))
    return { name: rest.slice(0, colon), tag: rest.slice(colon + 1), ...(digest ? { digest } : {}) };
  return { name: rest, ...(digest ? { digest } : {}) };
}

/** `[old=]name[:tag][@digest]` → a kustomization `images` entry. */
export function parseImageOverride(text: string): ImageOverride {
  const eq = text.indexOf('=');
  const oldName = eq >= 0 ? text.slice(0, eq) : undefined;
  const ref = parseImageRef(eq >= 0 ? text.slice(eq + 1) : text);
  const name = oldName ?? ref.name;
  return {
    name,
    ...(ref.name !== name ? { newName: ref.name } : {}),
    ...(ref.tag !== undefined ? { newTag: ref.tag } : {}),
    ...(ref.digest !== undefined ? { digest: ref.digest } : {}),
  };
}

/** `kustomize edit set image`: an override replaces the kustomization's entry of the same name. */
export function mergeImageOverrides(base: readonly ImageOverride[], extra: readonly ImageOverride[]): ImageOverride[] {
  return [...base.filter((b) => !extra.some((e) => e.name === b.name)), ...extra];
}
