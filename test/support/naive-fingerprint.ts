// A deliberately naive fingerprint/v1, written from the spec alone, to check the real one against.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

interface NaiveImage {
  context: string;
  dockerfile: string;
  target?: string;
  args?: Record<string, string>;
  platform?: string;
  inputs: string[];
  exclude?: string[];
}

const DEFAULTS = [
  '**/test/**',
  '**/tests/**',
  '**/__tests__/**',
  '**/*.test.*',
  '**/*.spec.*',
  '**/docs/**',
  '**/*.md',
];

/** The spec's glob rule, segment by segment, with no regular expression in sight. */
export function naiveGlobMatch(glob: string, path: string): boolean {
  const segment = (pat: string, name: string): boolean => {
    if (pat === '') return name === '';
    if (pat[0] === '*') return [...Array(name.length + 1).keys()].some((k) => segment(pat.slice(1), name.slice(k)));
    if (name === '') return false;
    return (pat[0] === '?' || pat[0] === name[0]) && segment(pat.slice(1), name.slice(1));
  };
  const match = (pats: string[], names: string[]): boolean => {
    if (pats.length === 0) return names.length === 0;
    const [head, ...rest] = pats;
    // a trailing `**` takes one segment at least: `a/**` is inside `a`, never the file `a`
    if (head === '**')
      return [...Array(names.length + 1).keys()].some((k) => (rest.length > 0 || k > 0) && match(rest, names.slice(k)));
    return names.length > 0 && segment(head ?? '', names[0] ?? '') && match(rest, names.slice(1));
  };
  return match(glob.split('/'), path.split('/'));
}

function allFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, rel))) {
    const path = rel ? `${rel}/${name}` : name;
    if (path === '.git' || path === '.local') continue;
    const st = lstatSync(join(dir, path));
    if (st.isDirectory()) out.push(...allFiles(dir, path));
    else out.push(path);
  }
  return out;
}

export function naiveFingerprint(
  dir: string,
  catalogue: { platform: string; exclude?: string[]; images: Record<string, NaiveImage> },
  name: string,
): string {
  const image = catalogue.images[name];
  if (!image) throw new Error(`no image ${name}`);
  const excludes = image.exclude ?? catalogue.exclude ?? DEFAULTS;
  const files = allFiles(dir)
    .filter(
      (p) =>
        p === image.dockerfile ||
        (image.inputs.some((i) => i === '.' || p === i || p.startsWith(`${i}/`)) &&
          !excludes.some((glob) => naiveGlobMatch(glob, p))),
    )
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  let text = `fingerprint/v1\nplatform\t${image.platform ?? catalogue.platform}\ncontext\t${image.context}\ndockerfile\t${image.dockerfile}\ntarget\t${image.target ?? ''}\n`;
  const args = Object.keys(image.args ?? {}).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const key of args) text += `arg\t${key}\t${image.args?.[key]}\n`;
  for (const path of files) {
    const st = lstatSync(join(dir, path));
    const content = st.isSymbolicLink()
      ? readlinkSync(join(dir, path), { encoding: 'buffer' })
      : readFileSync(join(dir, path));
    const mode = st.isSymbolicLink() ? '120000' : st.mode & 0o100 ? '100755' : '100644';
    text += `file\t${mode}\t${createHash('sha256').update(content).digest('hex')}\t${path}\n`;
  }
  return createHash('sha256').update(text).digest('hex');
}
