import { parseManifest } from './parse-manifest.ts';

export interface YamlDocument {
  readonly file: string;
  /** 1-based line where the document starts. */
  readonly line: number;
  readonly value: Record<string, unknown>;
  /** Line of a key path in this document, or the document's line. */
  lineOf(path: readonly (string | number)[]): number;
}

/** Every mapping document of a multi-document YAML file, with line lookups; unparsable documents are skipped. */
export function yamlDocuments(text: string, file: string): YamlDocument[] {
  const { docs, counter } = parseManifest(text);
  const out: YamlDocument[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) continue;
    const value = doc.toJS() as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    const start = doc.contents?.range?.[0] ?? 0;
    const line = counter.linePos(start).line;
    out.push({
      file,
      line,
      value: value as Record<string, unknown>,
      lineOf(path) {
        const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
        return node?.range ? counter.linePos(node.range[0]).line : line;
      },
    });
  }
  return out;
}
