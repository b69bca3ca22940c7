export const RULES = {
  'copy-outside-inputs': 'error',
  'copy-excluded': 'error',
  'missing-input': 'error',
  'missing-dockerfile': 'error',
  'missing-context': 'error',
  'uncatalogued-image': 'error',
  'unknown-application': 'error',
  'bad-dockerfile': 'error',
  'remote-add': 'warning',
  'filtered-input': 'warning',
  'unused-image': 'warning',
  'unreadable-manifest': 'warning',
  'context-binding': 'error',
  'context-migrations': 'error',
  'policy-after-hooks': 'error',
  'unreadable-registry': 'error',
} as const;

export type Rule = keyof typeof RULES;
export type Severity = 'error' | 'warning';

export interface Finding {
  readonly rule: Rule;
  readonly severity: Severity;
  /** Catalogue name, or the image reference for manifest findings about an image not in the catalogue. */
  readonly image: string;
  /** Repo-relative path of the file the finding points at. */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly message: string;
}

export function finding(rule: Rule, image: string, file: string, line: number, message: string): Finding {
  return { rule, severity: RULES[rule], image, file, line: Math.max(1, line), message };
}

/** Stable report order: image, file, line, rule. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    a.image.localeCompare(b.image) ||
    a.file.localeCompare(b.file) ||
    a.line - b.line ||
    a.rule.localeCompare(b.rule) ||
    a.message.localeCompare(b.message)
  );
}
