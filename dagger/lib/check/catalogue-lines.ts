import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import type { Node } from 'yaml';

/** Line lookups into the catalogue text, so findings about an entry point at its key. */
export interface CatalogueLines {
  /** Line of `images.<name>.<key>` (or `.<key>[index]`), falling back to the entry, then line 1. */
  at(name: string, key?: string, index?: number): number;
}

export function catalogueLines(text: string): CatalogueLines {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  const lineOf = (node: unknown): number | undefined => {
    const range = (node as Node | undefined)?.range;
    return range === undefined || range === null ? undefined : counter.linePos(range[0]).line;
  };
  const images = doc.get('images', true);
  return {
    at(name, key, index) {
      if (!isMap(images)) return 1;
      const pair = images.items.find((p) => isScalar(p.key) && p.key.value === name);
      if (pair === undefined) return 1;
      const entryLine = lineOf(pair.key) ?? 1;
      if (key === undefined || !isMap(pair.value)) return entryLine;
      const field = pair.value.items.find((p) => isScalar(p.key) && p.key.value === key);
      if (field === undefined) return entryLine;
      if (index !== undefined) {
        const item = (field.value as { items?: unknown[] } | null)?.items?.[index];
        return lineOf(item) ?? lineOf(field.key) ?? entryLine;
      }
      return lineOf(field.key) ?? entryLine;
    },
  };
}
