// Argo CD compares the rendered manifest with the live object; fields the server adds (status, defaults) do not count.
import { isDeepStrictEqual } from 'node:util';

export const TRACKING_ANNOTATION = 'argocd.argoproj.io/tracking-id';

function subset(desired: unknown, live: unknown): boolean {
  if (Array.isArray(desired)) {
    return Array.isArray(live) && desired.length === live.length && desired.every((d, i) => subset(d, live[i]));
  }
  if (typeof desired === 'object' && desired !== null) {
    if (typeof live !== 'object' || live === null || Array.isArray(live)) return false;
    return Object.entries(desired).every(([k, v]) => subset(v, (live as Record<string, unknown>)[k]));
  }
  return isDeepStrictEqual(desired, live);
}

/** True when every field the manifest sets has that value live (metadata: only labels and annotations). */
export function inSync(desired: Record<string, unknown>, live: Record<string, unknown>): boolean {
  const { metadata: dm, status: _ds, ...dRest } = desired as { metadata?: Record<string, unknown>; status?: unknown };
  const { metadata: lm, ...lRest } = live as { metadata?: Record<string, unknown> };
  const labels = subset(dm?.['labels'] ?? {}, lm?.['labels'] ?? {});
  const annotations = subset(dm?.['annotations'] ?? {}, lm?.['annotations'] ?? {});
  return labels && annotations && subset(dRest, lRest);
}
