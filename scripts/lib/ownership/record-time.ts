/** RFC 3339 UTC to the second, as the records carry it. */
export function rfc3339(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
