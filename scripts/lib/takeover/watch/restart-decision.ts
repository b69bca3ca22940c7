// Pure: which saved files matter, which images they can move, and what each moved image means for the session.
import { posix } from 'node:path';
import type { Catalogue, ImageEntry } from '../../catalogue/catalogue.ts';

// Editor scratch files (vim swap and its 4913 probe, emacs locks and autosaves, JetBrains and Kate temporaries, backups).
const EDITOR_TEMP = [
  /(^|\/)\.[^/]*\.sw[a-px]$/,
  /(^|\/)4913$/,
  /~$/,
  /(^|\/)\.#[^/]*$/,
  /(^|\/)#[^/]*#$/,
  /___jb_(tmp|old)___$/,
  /\.kate-swp$/,
  /\.tmp$/,
  /(^|\/)\.goutputstream-[^/]*$/,
];

/** True for paths the watcher never acts on: `.local/` (caches, journal, logs), `.git/`, editor temporaries. */
export function isIgnoredPath(path: string): boolean {
  const p = posix.normalize(path.split('\\').join('/'));
  if (p === '.local' || p.startsWith('.local/') || p === '.git' || p.startsWith('.git/')) return true;
  return EDITOR_TEMP.some((re) => re.test(p));
}

const under = (path: string, prefix: string) =>
  prefix === '.' || path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);

/** The images whose inputs (or Dockerfile, or the catalogue itself) hold one of the paths. */
export function imagesTouching(catalogue: Catalogue, paths: readonly string[], catalogueFile: string): ImageEntry[] {
  if (paths.includes(catalogueFile)) return [...catalogue.images];
  return catalogue.images.filter((image) =>
    paths.some((p) => p === image.dockerfile || image.inputs.some((input) => under(p, input))),
  );
}

export interface RestartDecision {
  /** Taken over here and moved: stop and start again. */
  readonly restart: readonly string[];
  /** Moved, and no takeover runtime (actors, migrations): reported, never restarted. */
  readonly reconcile: readonly string[];
  /** Moved and could be taken over, but this session does not run it. */
  readonly candidates: readonly string[];
}

/** Compares the fingerprints before and after a save for the images the saved paths touch. */
export function decideRestarts(
  catalogue: Catalogue,
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  running: ReadonlySet<string>,
): RestartDecision {
  const restart: string[] = [];
  const reconcile: string[] = [];
  const candidates: string[] = [];
  for (const [name, fingerprint] of after) {
    if (before.get(name) === fingerprint) continue;
    const entry = catalogue.images.find((e) => e.name === name);
    if (running.has(name)) restart.push(name);
    else if (entry?.takeover === undefined) reconcile.push(name);
    else candidates.push(name);
  }
  return { restart: restart.sort(), reconcile: reconcile.sort(), candidates: candidates.sort() };
}
