import type { ImageFingerprint } from './fingerprint-images.ts';

/** `fingerprint --json`: `{"schema":1,"source","images":{name:{fingerprint,files}}}` on one line. */
export function fingerprintReport(sourceId: string, results: readonly ImageFingerprint[]): string {
  const images = Object.fromEntries(results.map((r) => [r.name, { fingerprint: r.fingerprint, files: r.files }]));
  return `${JSON.stringify({ schema: 1, source: sourceId, images })}\n`;
}
