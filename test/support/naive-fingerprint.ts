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
}

const DEFAULTS = ['**/test/**', '**/tests/**', '**/__tests__/**', '**/*.test.*', '**/*.spec.*', '**/docs/**', '**/*.md'];

function globToRegExp(glob: string): RegExp {
  let re = '';
  const segments = glob.split('/');
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1;
    if (seg === '**') {
      re += last ? '.*' : '(?:[^/]*/)*';
      return;
    }
    re += seg.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
    if (!last) re += '/';
  });
  return new RegExp(`^${re}$`);
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

export function naiveFingerprint(dir: string, catalogue: { platform: string; exclude?: string[]; images: Record<string, NaiveImage> }, name: string): string {
  const image = catalogue.images[name];
  if (!image) throw new Error(`no image ${name}`);
  const excludes = (catalogue.exclude ?? DEFAULTS).map(globToRegExp);
  const files = allFiles(dir)
    .filter((p) => p === image.dockerfile || (image.inputs.some((i) => i === '.' || p === i || p.startsWith(`${i}/`)) && !excludes.some((re) => re.test(p))))
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  let text = `fingerprint/v1\nplatform\t${image.platform ?? catalogue.platform}\ncontext\t${image.context}\ndockerfile\t${image.dockerfile}\ntarget\t${image.target ?? ''}\n`;
  const args = Object.keys(image.args ?? {}).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const key of args) text += `arg\t${key}\t${image.args?.[key]}\n`;
  for (const path of files) {
    const st = lstatSync(join(dir, path));
    const content = st.isSymbolicLink() ? readlinkSync(join(dir, path), { encoding: 'buffer' }) : readFileSync(join(dir, path));
    const mode = st.isSymbolicLink() ? '120000' : st.mode & 0o100 ? '100755' : '100644';
    text += `file\t${mode}\t${createHash('sha256').update(content).digest('hex')}\t${path}\n`;
  }
  return createHash('sha256').update(text).digest('hex');
}
