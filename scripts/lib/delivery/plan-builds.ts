import type { ImageFingerprint } from '../fingerprint/fingerprint-images.ts';
import { explainChange } from '../fingerprint/explain-change.ts';
import type { ImageMap } from '../ownership/ownership-records.ts';

/** What the cluster runs, as the ownership ConfigMap records it, with each image's encoding at that revision. */
export interface Deployed {
  readonly revision: string | undefined;
  readonly images: ImageMap;
  /** Fingerprints of the deployed revision's tree; undefined when that tree cannot be read. */
  readonly fingerprints: ReadonlyMap<string, ImageFingerprint> | undefined;
}

export interface ImagePlan {
  readonly name: string;
  readonly fingerprint: string;
  readonly build: boolean;
  /** Why it builds (or `unchanged`). */
  readonly reasons: readonly string[];
  /** The reference kept when it does not build. */
  readonly reference: string | undefined;
}

/** The images whose fingerprint differs from the deployed one: only these need their encodings for the reasons. */
export function changedImages(
  current: readonly ImageFingerprint[],
  deployed: ReadonlyMap<string, ImageFingerprint> | undefined,
): string[] {
  if (deployed === undefined) return [];
  return current
    .filter((image) => deployed.has(image.name) && deployed.get(image.name)?.fingerprint !== image.fingerprint)
    .map((image) => image.name);
}

/** Pure: an image builds when the cluster has no digest for it or its fingerprint differs from the deployed revision's. */
export function planBuilds(current: readonly ImageFingerprint[], deployed: Deployed): ImagePlan[] {
  return current.map((image) => {
    const reference = deployed.images[image.name];
    if (reference === undefined)
      return {
        name: image.name,
        fingerprint: image.fingerprint,
        build: true,
        reasons: ['no image in the cluster yet'],
        reference: undefined,
      };
    const before = deployed.fingerprints?.get(image.name);
    if (before === undefined) {
      const why =
        deployed.fingerprints === undefined
          ? `deployed revision ${deployed.revision ?? '(none)'} cannot be read`
          : 'not in the deployed revision';
      return { name: image.name, fingerprint: image.fingerprint, build: true, reasons: [why], reference: undefined };
    }
    if (before.fingerprint === image.fingerprint)
      return { name: image.name, fingerprint: image.fingerprint, build: false, reasons: ['unchanged'], reference };
    const reasons =
      before.encoding !== undefined && image.encoding !== undefined
        ? explainChange(before.encoding, image.encoding)
        : [];
    return {
      name: image.name,
      fingerprint: image.fingerprint,
      build: true,
      reasons: reasons.length > 0 ? reasons : ['fingerprint changed'],
      reference: undefined,
    };
  });
}
