// What a Dockerfile makes BuildKit fetch before any step runs, read as BuildKit v0.16.0 reads it (moby/buildkit@
// 0865fcc9b78559e856e81dc52b3613701e7be28d), independently of the toolkit's own Dockerfile analyser:
// - the `# syntax=` parser directive, which makes the built-in frontend forward to that frontend image
//   (frontend/dockerfile/parser/directives.go: DetectSyntax, DirectiveParser; builder/build.go: forwardGateway);
// - the FROM images, expanded with the global ARGs, a build argument replacing an ARG's whole default and a default
//   expanded with the ARGs before it (dockerfile2llb/convert.go: buildMetaArgs, toDispatchState), `scratch` being
//   none and a FROM naming an earlier stage being that stage;
// - `COPY --from=` and `RUN --mount=from=` naming no stage: images too (convert.go: toCommand, detectRunMount);
// - only what the target's stage reaches (convert.go: allReachableStages; "resolve image config for every stage"
//   only `if reachable`);
// - `ADD <url>`, fetched by BuildKit itself (llb.HTTP/llb.Git), not by a step.

export interface DockerfileSources {
  /** The frontend image the `# syntax=` directive names. */
  readonly syntax: string | undefined;
  readonly images: readonly { readonly reference: string; readonly line: number }[];
  readonly remotes: readonly { readonly url: string; readonly line: number }[];
}

interface Stage {
  readonly name: string | undefined;
  readonly deps: Set<number>;
  readonly images: { reference: string; line: number }[];
  readonly remotes: { url: string; line: number }[];
}

const REMOTE = /^(https?:\/\/|git@|git:\/\/)/i;
const KNOWN = ['syntax', 'escape', 'check'];

/** directives.go DirectiveParser: leading `<comment> key=value` lines of a known key; the first other line ends them. */
function directives(lines: readonly string[], comment: string): Map<string, string> {
  const pattern = new RegExp(`^${comment}\\s*([a-zA-Z][a-zA-Z0-9]*)\\s*=\\s*(.+?)\\s*$`);
  const out = new Map<string, string>();
  for (const line of lines) {
    const match = pattern.exec(line);
    const key = match?.[1]?.toLowerCase();
    if (match === null || key === undefined || !KNOWN.includes(key) || out.has(key)) break;
    out.set(key, match[2] ?? '');
  }
  return out;
}

/** directives.go DetectSyntax: a first `#!` line skipped; `#` directives, else `//` ones, else a JSON object's key. */
export function detectSyntax(text: string): string | undefined {
  const shebang = text.startsWith('#!');
  const body = shebang ? text.slice(text.indexOf('\n') + 1 || text.length) : text;
  const lines = body.split('\n');
  for (const comment of ['#', '//']) {
    const value = directives(lines, comment).get('syntax');
    if (value !== undefined) return value.split(' ')[0];
  }
  try {
    const json: unknown = JSON.parse(body);
    const value = (json as Record<string, unknown> | null)?.['syntax'];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** shell/lex.go's word expansion, as far as FROM lines use it: $X, ${X}, ${X:-w}, ${X-w}, ${X:+w}, ${X+w}, quotes. */
export function expand(word: string, vars: ReadonlyMap<string, string | undefined>): string {
  let out = '';
  for (let i = 0; i < word.length; i++) {
    const c = word[i] ?? '';
    if (c === "'" || c === '"') continue;
    if (c === '\\' && i + 1 < word.length) {
      out += word[++i];
      continue;
    }
    if (c !== '$') {
      out += c;
      continue;
    }
    if (word[i + 1] === '{') {
      const close = word.indexOf('}', i);
      const inner = word.slice(i + 2, close < 0 ? word.length : close);
      i = close < 0 ? word.length : close;
      const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-+])(.*))?$/.exec(inner);
      if (m === null) throw new Error(`failed to process "${word}": unsupported modifier in \${${inner}}`);
      const value = vars.get(m[1] ?? '');
      const set = m[2] === ':' ? value !== undefined && value !== '' : value !== undefined;
      if (m[3] === '-') out += set ? value : expand(m[4] ?? '', vars);
      else if (m[3] === '+') out += set ? expand(m[4] ?? '', vars) : '';
      else out += value ?? '';
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(word.slice(i + 1))?.[0];
    if (name === undefined) out += c;
    else {
      out += vars.get(name) ?? '';
      i += name.length;
    }
  }
  return out;
}

/** Logical instructions: continuation lines joined, comments and blank lines dropped, each with its first line. */
function instructions(lines: readonly string[], escape: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let current: { text: string; line: number } | undefined;
  for (const [i, raw] of lines.entries()) {
    const line = raw.replace(/\r$/, '');
    if (/^\s*#/.test(line) || (current === undefined && line.trim() === '')) continue;
    const continued = line.trimEnd().endsWith(escape);
    const part = continued ? line.trimEnd().slice(0, -1) : line;
    current = current === undefined ? { text: part, line: i + 1 } : { ...current, text: `${current.text} ${part}` };
    if (!continued) {
      out.push(current);
      current = undefined;
    }
  }
  if (current !== undefined) out.push(current);
  return out;
}

function stageIndex(stages: readonly Stage[], ref: string): number | undefined {
  const lower = ref.toLowerCase();
  const named = stages.findIndex((s) => s.name === lower);
  if (named >= 0) return named;
  return /^[0-9]+$/.test(ref) && Number(ref) < stages.length ? Number(ref) : undefined;
}

/** What building `target` (default: the last stage) with these build arguments fetches. */
export function dockerfileSources(
  text: string,
  buildArgs: ReadonlyMap<string, string>,
  target: string | undefined,
): DockerfileSources {
  const lines = text.split('\n');
  const found = directives(lines[0]?.startsWith('#!') ? lines.slice(1) : lines, '#');
  const meta = new Map<string, string | undefined>();
  const stages: Stage[] = [];
  for (const { text: instruction, line } of instructions(lines, found.get('escape') ?? '\\')) {
    const [keyword = '', ...words] = instruction.trim().split(/\s+/);
    const upper = keyword.toUpperCase();
    const stage = stages.at(-1);
    if (upper === 'ARG' && stage === undefined) {
      for (const word of words) {
        const eq = word.indexOf('=');
        const key = eq < 0 ? word : word.slice(0, eq);
        meta.set(key, buildArgs.get(key) ?? (eq < 0 ? undefined : expand(word.slice(eq + 1), meta)));
      }
    } else if (upper === 'FROM') {
      const plain = words.filter((w) => !w.startsWith('--'));
      const base = expand(plain[0] ?? '', meta);
      if (base === '') throw new Error(`Dockerfile:${line}: base name (${plain[0] ?? ''}) should not be blank`);
      const name = plain[1]?.toLowerCase() === 'as' ? plain[2]?.toLowerCase() : undefined;
      const parent = stages.findIndex((s) => s.name === base.toLowerCase());
      const images = parent < 0 && base.toLowerCase() !== 'scratch' ? [{ reference: base, line }] : [];
      stages.push({ name, deps: new Set(parent < 0 ? [] : [parent]), images, remotes: [] });
    } else if (stage !== undefined) {
      const flags = words.filter((w) => w.startsWith('--'));
      const froms = flags.flatMap((f) => {
        if (upper === 'COPY' && f.startsWith('--from=')) return [f.slice('--from='.length)];
        const mount = upper === 'RUN' && f.startsWith('--mount=') ? f.slice('--mount='.length).split(',') : [];
        return mount.filter((o) => o.startsWith('from=')).map((o) => o.slice('from='.length));
      });
      for (const from of froms) {
        const index = stageIndex(stages, from);
        if (index !== undefined) stage.deps.add(index);
        else stage.images.push({ reference: from, line });
      }
      if (upper === 'ADD')
        for (const word of words.filter((w) => !w.startsWith('--')).slice(0, -1))
          if (REMOTE.test(word)) stage.remotes.push({ url: word, line });
    }
  }
  const wanted = target === undefined ? stages.length - 1 : stageIndex(stages, target);
  if (wanted === undefined || wanted < 0) throw new Error(`target stage "${target ?? ''}" could not be found`);
  const reach = new Set<number>();
  const visit = (i: number) => {
    if (reach.has(i)) return;
    reach.add(i);
    for (const d of stages[i]?.deps ?? []) visit(d);
  };
  visit(wanted);
  const picked = stages.filter((_, i) => reach.has(i));
  return {
    syntax: detectSyntax(text),
    images: picked.flatMap((s) => s.images),
    remotes: picked.flatMap((s) => s.remotes),
  };
}
