import type { Catalogue } from '../catalogue/catalogue.ts';
import type { ImageMap } from '../ownership/ownership-records.ts';

/** Argo CD `kustomize.images` entries of one Application: `<catalogue image>=<registry>/<name>@sha256:…`. */
export function kustomizeImages(catalogue: Catalogue, application: string, images: ImageMap): string[] {
  return catalogue.images
    .filter((entry) => entry.application === application && images[entry.name] !== undefined)
    .map((entry) => `${entry.image}=${images[entry.name]}`)
    .sort();
}

export interface RootInputs {
  readonly targetRevision: string;
  readonly patches: readonly { readonly target: Readonly<Record<string, string>>; readonly patch: string }[];
}

/**
 * Pure: the root Application's inputs. The root renders the child Applications from `gitops/root` and these
 * kustomize patches give each child the in-cluster repository, the commit and its digests (`kustomize.images`);
 * no child is patched directly.
 */
export function rootInputs(catalogue: Catalogue, commit: string, images: ImageMap, repoURL: string): RootInputs {
  const applications = [
    ...new Set(catalogue.images.flatMap((entry) => (entry.application === undefined ? [] : [entry.application]))),
  ].sort();
  return {
    targetRevision: commit,
    patches: applications.map((application) => ({
      target: { group: 'argoproj.io', version: 'v1alpha1', kind: 'Application', name: application },
      patch: JSON.stringify({
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: application },
        spec: {
          source: {
            repoURL,
            targetRevision: commit,
            kustomize: { images: kustomizeImages(catalogue, application, images) },
          },
        },
      }),
    })),
  };
}

/** The merge patch that sets the inputs on the root Application, or undefined when it already has them. */
export function rootInputsPatch(
  root: { readonly spec?: unknown },
  inputs: RootInputs,
): Record<string, unknown> | undefined {
  const source = ((root.spec as { source?: Record<string, unknown> } | undefined)?.source ?? {}) as {
    targetRevision?: unknown;
    kustomize?: { patches?: unknown };
  };
  const same =
    source.targetRevision === inputs.targetRevision &&
    JSON.stringify(source.kustomize?.patches ?? []) === JSON.stringify(inputs.patches);
  if (same) return undefined;
  return { spec: { source: { targetRevision: inputs.targetRevision, kustomize: { patches: inputs.patches } } } };
}
