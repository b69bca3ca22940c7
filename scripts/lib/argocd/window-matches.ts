// SyncWindows.Matches: a window applies to an Application by name, destination namespace or destination cluster.
import { globMatch } from './glob-match.ts';
import type { SyncWindow } from './sync-window-schema.ts';

/** What Argo CD matches a window against. */
export interface WindowTarget {
  readonly name: string;
  readonly destination: { readonly server?: string; readonly name?: string; readonly namespace?: string };
}

type Selectors = Pick<SyncWindow, 'applications' | 'namespaces' | 'clusters' | 'andOperator'>;

/** OR of the non-empty selectors by default, AND with `andOperator`; a window without selectors matches nothing. */
export function windowMatches(window: Selectors, app: WindowTarget): boolean {
  const dst = app.destination;
  const results: boolean[] = [];
  if (window.applications?.length) results.push(window.applications.some((p) => globMatch(p, app.name)));
  if (window.clusters?.length) {
    results.push(
      window.clusters.some(
        (p) => (dst.name ? globMatch(p, dst.name) : false) || (dst.server ? globMatch(p, dst.server) : false),
      ),
    );
  }
  if (window.namespaces?.length) results.push(window.namespaces.some((p) => globMatch(p, dst.namespace ?? '')));
  if (results.length === 0) return false;
  return window.andOperator ? results.every(Boolean) : results.some(Boolean);
}

export function matchingWindows<W extends Selectors>(windows: readonly W[] | undefined, app: WindowTarget): W[] {
  // Stryker disable next-line ArrayDeclaration: equivalent: an entry without selectors matches nothing, so the fallback's content never passes
  return (windows ?? []).filter((w) => windowMatches(w, app));
}
