// One YAML parse per manifest text in a check run: the manifests scan and the pharos rules read the same files, and a
// vendored install (Argo CD's is 1.9 MB) would otherwise be parsed twice.
import { LineCounter, parseAllDocuments } from 'yaml';
import type { Document } from 'yaml';

export interface ParsedManifest {
  readonly docs: readonly Document.Parsed[];
  readonly counter: LineCounter;
}

const parsed = new Map<string, ParsedManifest>();

/** The documents of `text` (errors kept on each, unprettified) and the line counter that places their nodes. */
export function parseManifest(text: string): ParsedManifest {
  let found = parsed.get(text);
  if (found === undefined) {
    const counter = new LineCounter();
    const docs = parseAllDocuments(text, { lineCounter: counter, prettyErrors: false });
    found = { docs: Array.isArray(docs) ? docs : [docs as unknown as Document.Parsed], counter };
    parsed.set(text, found);
  }
  return found;
}

/** Ends a check run's sharing, so a long-lived process does not keep every manifest it ever checked. */
export function forgetParsedManifests(): void {
  parsed.clear();
}
