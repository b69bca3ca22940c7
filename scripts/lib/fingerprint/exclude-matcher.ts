import picomatch from 'picomatch';

/**
 * The runtime_path rule: `*`, `?` and whole-segment `**` only, matched against the whole path,
 * with no special leading dot; picomatch's other syntax (braces, brackets, extglobs, negation) is off.
 */
export function excludeMatcher(globs: readonly string[]): (path: string) => boolean {
  if (globs.length === 0) return () => false;
  const matchers = globs.map((glob) =>
    picomatch(glob, { dot: true, nobrace: true, nobracket: true, noextglob: true, nonegate: true }),
  );
  return (path) => matchers.some((match) => match(path));
}
