import type { Finding } from './finding.ts';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `file:line rule message`, grouped by image in the order given (checkPlatform sorts), then one summary line. */
export function formatReport(findings: readonly Finding[], checked: { images: number; source: string }): string {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) groups.set(f.image, [...(groups.get(f.image) ?? []), f]);
  const out: string[] = [];
  for (const [image, items] of groups) {
    out.push(image === '-' ? 'manifests:' : `${image}:`);
    for (const f of items)
      out.push(`  ${f.file}:${f.line} ${f.rule}${f.severity === 'warning' ? ' (warning)' : ''} ${f.message}`);
  }
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.length - errors;
  out.push(
    `check: ${plural(errors, 'error')}, ${plural(warnings, 'warning')} in ${plural(checked.images, 'catalogue image')} (source ${checked.source})`,
  );
  return `${out.join('\n')}\n`;
}

export function reportJson(findings: readonly Finding[]): string {
  const rows = findings.map(({ rule, severity, image, file, line, message }) => ({
    rule,
    severity,
    image,
    file,
    line,
    message,
  }));
  return `${JSON.stringify({ schema: 1, findings: rows })}\n`;
}
