/**
 * The runtime_path rule's globs, exactly as the spec defines them: matched against the whole path,
 * `*` any run of characters but `/`, `?` one such character, `**` as a whole segment zero or more
 * segments (one or more as the last segment: `a/**` is inside `a`, never a file `a`), a leading dot not special, no other syntax. Hand-written rather than picomatch: its
 * defaults differ (dot files, braces, brackets, extglobs) and its general regexes cost 3-4x here,
 * on a path of every file of every fingerprint.
 */
export function globToRegExpSource(glob: string): string {
  // Stryker disable next-line ArithmeticOperator: dropping the first or the second of two adjacent `**` leaves the same list
  const segments = glob.split('/').filter((seg, i, all) => !(seg === '**' && all[i - 1] === '**')); // `**/**` is `**`
  let re = '';
  segments.forEach((seg, i) => {
    const first = i === 0;
    const last = i === segments.length - 1;
    if (seg === '**') {
      if (first && last) re += '.*';
      else if (first) re += '(?:.*/)?';
      else if (last) re += '/.+';
      else re += '/(?:.*/)?';
      return;
    }
    if (!first && segments[i - 1] !== '**') re += '/';
    re += seg
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '[^/]');
  });
  return `^${re}$`;
}

/** One alternation of every glob: a path costs one regex test however many globs there are. */
export function excludeMatcher(globs: readonly string[]): (path: string) => boolean {
  if (globs.length === 0) return () => false;
  const combined = new RegExp(globs.map((glob) => `(?:${globToRegExpSource(glob)})`).join('|'), 's');
  return (path) => combined.test(path);
}
