import type { TakeoverSpec } from './catalogue-schema.ts';

export const CATALOGUE_PATH = 'gitops/manifests/images.yaml';

export interface ImageEntry {
  readonly name: string;
  readonly image: string;
  /** Undefined for an image declared `deployed: false`: built and fingerprinted, deployed by no Application. */
  readonly application: string | undefined;
  readonly context: string;
  readonly dockerfile: string;
  readonly target: string | undefined;
  /** Sorted by key, bytewise. */
  readonly args: readonly (readonly [string, string])[];
  /** The image's own platform, else the catalogue's. */
  readonly platform: string;
  readonly inputs: readonly string[];
  /** The image's own `exclude`, else the catalogue's. */
  readonly exclude: readonly string[];
  readonly takeover: TakeoverSpec | undefined;
}

export interface Catalogue {
  readonly file: string;
  readonly platform: string;
  readonly exclude: readonly string[];
  readonly owned: readonly string[];
  /** Sorted by name. */
  readonly images: readonly ImageEntry[];
}

export function findImage(catalogue: Catalogue, name: string): ImageEntry | undefined {
  return catalogue.images.find((entry) => entry.name === name);
}
