import type { DeliveryState } from './delivery-context.ts';

/** The child Applications of the root: those the catalogue's images belong to, sorted. */
export const applicationsOf = (state: DeliveryState): string[] =>
  [
    ...new Set((state.catalogue?.images ?? []).flatMap((i) => (i.application === undefined ? [] : [i.application]))),
  ].sort();

/** The Applications whose images this delivery built: Argo CD syncs them once more so their hooks run the new digests. */
export const builtApplications = (state: DeliveryState): string[] => {
  const built = new Set((state.plan ?? []).filter((p) => p.build).map((p) => p.name));
  return [
    ...new Set(
      (state.catalogue?.images ?? []).flatMap((i) =>
        built.has(i.name) && i.application !== undefined ? [i.application] : [],
      ),
    ),
  ].sort();
};
