import { isDeepStrictEqual } from 'node:util';

/** Equal as JSON documents: key order and undefined members do not count. */
export function sameJson(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
  return isDeepStrictEqual(norm(a), norm(b));
}
