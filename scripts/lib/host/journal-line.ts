/** One journal-friendly line: `reconcile-deployment: <step> key=value ...`, values JSON-quoted only when they need it. */
export function journalLine(step: string, fields: Readonly<Record<string, unknown>>): string {
  const parts = Object.entries(fields).map(([key, value]) => {
    const text = typeof value === 'string' && /^[\w.:/@+-]+$/.test(value) ? value : JSON.stringify(value);
    return `${key}=${text}`;
  });
  return `reconcile-deployment: ${step} ${parts.join(' ')}\n`;
}
