// kustomize's images transformer: rewrite container images whose name matches (newName, newTag, digest).
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
  if (colon > rest.lastIndexOf('/')) return { name: rest.slice(0, colon), tag: rest.slice(colon + 1), digest };
  return { name: rest, digest };
}

/**
 * Argo CD `spec.source.kustomize.images` entry (`kustomize edit set image` syntax):
 * `[old=]name[:tag][@digest]`.
 */
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

function rewrite(image: string, override: ImageOverride): string {
  const ref = parseImageRef(image);
  const name = override.newName ?? ref.name;
  if (override.digest !== undefined) return `${name}@${override.digest}`;
  if (override.newTag !== undefined) return `${name}:${override.newTag}`;
  return `${name}${ref.tag !== undefined ? `:${ref.tag}` : ''}${ref.digest !== undefined ? `@${ref.digest}` : ''}`;
}

/** Applies overrides to every `containers[].image` and `initContainers[].image` anywhere in the object. */
export function applyImageOverrides(node: unknown, overrides: readonly ImageOverride[]): void {
  if (overrides.length === 0 || typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) {
    for (const item of node) applyImageOverrides(item, overrides);
    return;
  }
  const obj = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(obj)) {
    if ((key === 'containers' || key === 'initContainers') && Array.isArray(value)) {
      for (const container of value) {
        if (typeof container !== 'object' || container === null) continue;
        const c = container as Record<string, unknown>;
        if (typeof c['image'] !== 'string') continue;
        const match = overrides.find((o) => o.name === parseImageRef(c['image'] as string).name);
        if (match) c['image'] = rewrite(c['image'] as string, match);
      }
    }
    applyImageOverrides(value, overrides);
  }
}

/** `kustomize edit set image`: an override replaces the kustomization's entry of the same name. */
export function mergeImageOverrides(base: readonly ImageOverride[], extra: readonly ImageOverride[]): ImageOverride[] {
  const out = base.filter((b) => !extra.some((e) => e.name === b.name));
  return [...out, ...extra];
}
