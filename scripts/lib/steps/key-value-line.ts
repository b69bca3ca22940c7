import type { Fields } from './step.ts';

/** One journal-friendly line: `<program>: <step> key=value ...`, values JSON-quoted only when they need it. */
export function keyValueLine(program: string, step: string, fields: Fields): string {
  const parts = Object.entries(fields).map(([key, value]) => {
    const text = typeof value === 'string' && /^[\w.:/@+-]+$/.test(value) ? value : JSON.stringify(value);
    return `${key}=${text}`;
  });
  return `${program}: ${step} ${parts.join(' ')}\n`;
}
