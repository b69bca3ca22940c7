import { keyValueLine } from '../steps/key-value-line.ts';

/** One journal-friendly line: `reconcile-deployment: <step> key=value ...`, values JSON-quoted only when they need it. */
export function journalLine(step: string, fields: Readonly<Record<string, unknown>>): string {
  return keyValueLine('reconcile-deployment', step, fields);
}
