// The top-level keys Helm sees in a values file, read as Helm reads it:
// - helm/helm@e9b85e4de16ad45805843fb121748018cf89094b:pkg/chart/v2/loader/load.go LoadValues (same in v4.2.4,
//   3900f434): a trailing newline is added, the file is split with apimachinery's YAMLReader, each document is decoded
//   with sigs.k8s.io/yaml and the documents are merged in order, so a key of any document reaches the values;
// - kubernetes/apimachinery@eed236ceee2c19c2753a3d93ac0631dc20750454:pkg/util/yaml/decoder.go YAMLReader.Read: a line
//   beginning with "---" ends a document, and anything but spaces or a comment after it is an error;
// - kubernetes-sigs/yaml@048d724aca2d37ddb5b03c90b5b4550a3a48766d (v1.6.0, Helm's go.mod):yaml.go decodes with
//   go.yaml.in/yaml/v2 and turns string, int, float and bool keys into strings;
// - yaml/go-yaml@3b57511c5e469cd030f5df7705d1f4208aa8b339 (v2.4.3):decode.go is YAML 1.1: a plain (or !!merge) `<<` key
//   merges a map, an alias of one or a list of them (isMerge, merge), and a `!!binary` key is its decoded text (scalar).
// The `yaml` package in YAML 1.1 mode with merge keys resolves the same; anything it cannot read is refused rather than
// guessed, and where it reads more documents than Helm does (a `...` end marker) the keys of every one count.
import { parseAllDocuments } from 'yaml';

export class ValuesFileError extends Error {}

/** Splits like apimachinery's YAMLReader: the separator line starts the next document. */
function helmDocuments(text: string): string[] {
  const docs: string[] = [];
  let buffer = '';
  for (const line of (text.endsWith('\n') ? text : `${text}\n`).split(/(?<=\n)/)) {
    if (line.startsWith('---')) {
      const rest = line.slice(3).trim();
      if (rest !== '' && !rest.startsWith('#'))
        throw new ValuesFileError(`invalid YAML document separator "${line.trimEnd()}" (Helm refuses it too)`);
      if (buffer !== '') docs.push(buffer);
      buffer = '';
    }
    buffer += line;
  }
  if (buffer !== '') docs.push(buffer);
  return docs;
}

/** What go-yaml v2 makes of a map key, as sigs.k8s.io/yaml then spells it; undefined for keys no string can equal. */
function keyText(key: unknown): string | undefined {
  if (typeof key === 'string') return key;
  if (key instanceof Uint8Array) return Buffer.from(key).toString('utf8');
  if (typeof key === 'number' || typeof key === 'boolean') return String(key);
  return undefined;
}

/** Every top-level key of `bytes` as Helm merges it; a file Helm would read differently throws ValuesFileError. */
export function helmValuesKeys(bytes: Buffer): Set<string> {
  // go-yaml reads UTF-16 with a byte-order mark; this reader does not, so such a file is refused, never misread.
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    throw new ValuesFileError('it is UTF-16; write it as UTF-8');
  if (bytes.includes(0)) throw new ValuesFileError('it contains a NUL byte');
  const keys = new Set<string>();
  for (const chunk of helmDocuments(bytes.toString('utf8'))) {
    for (const doc of parseAllDocuments(chunk, { version: '1.1', merge: true, uniqueKeys: true })) {
      const problem = doc.errors[0];
      if (problem !== undefined) throw new ValuesFileError(problem.message);
      const value: unknown = doc.toJS({ mapAsMap: true, maxAliasCount: 100 });
      if (value === null || value === undefined) continue;
      if (!(value instanceof Map))
        throw new ValuesFileError(
          `expected a map of Helm values, got ${Array.isArray(value) ? 'a list' : typeof value}`,
        );
      for (const key of value.keys()) {
        const text = keyText(key);
        if (text !== undefined) keys.add(text);
      }
    }
  }
  return keys;
}
