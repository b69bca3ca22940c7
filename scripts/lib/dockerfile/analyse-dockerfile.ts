import { Arg, DockerfileParser, Env, ModifiableInstruction } from 'dockerfile-ast';
import { expandWord } from './expand-word.ts';
import { instructionWords, lineOffsets } from './instruction-words.ts';
import { platformArgs } from './platform-args.ts';
import { reachableStages } from './stage-graph.ts';

/** A path the build reads from its context, as written after variable expansion (may be a glob). */
export interface ContextRead {
  readonly instruction: 'COPY' | 'ADD' | 'RUN --mount';
  readonly source: string;
  /** 1-based line of the source word. */
  readonly line: number;
}

export interface RemoteSource {
  readonly url: string;
  readonly line: number;
  /** Variables the URL names that have no value here: BuildKit expands them to nothing. */
  readonly unset: readonly string[];
}

/** An image a needed stage builds on or copies from (`FROM`, `COPY --from`, `RUN --mount=from=`), as expanded. */
export interface ImageUse {
  readonly reference: string;
  readonly line: number;
}

export interface DockerfileProblem {
  readonly line: number;
  readonly message: string;
}

export interface DockerfileAnalysis {
  readonly reads: readonly ContextRead[];
  readonly remotes: readonly RemoteSource[];
  /** The images the build resolves from a registry (never `scratch`, never a stage). */
  readonly images: readonly ImageUse[];
  readonly problems: readonly DockerfileProblem[];
}

export interface BuildOptions {
  /** The catalogue entry's `args`. */
  readonly args: ReadonlyMap<string, string>;
  readonly target?: string | undefined;
  readonly platform: string;
}

interface Stage {
  readonly name: string | undefined;
  readonly line: number;
  readonly deps: Set<string | number>;
  readonly reads: ContextRead[];
  readonly remotes: RemoteSource[];
  readonly images: ImageUse[];
  readonly env: Map<string, string>;
}

// BuildKit fetches these instead of reading the context: URLs and git remotes
const REMOTE = /^(https?:\/\/|git@|git:\/\/|ssh:\/\/|github\.com\/)/i;

/** `--from=<stage>` names an earlier stage (by name or index), anything else is an image. */
function stageRef(value: string, stages: readonly Stage[]): string | number | undefined {
  const lower = value.toLowerCase();
  if (stages.some((s) => s.name === lower)) return lower;
  if (/^[0-9]+$/.test(value) && Number(value) < stages.length) return Number(value);
  return undefined;
}

/**
 * What a Dockerfile reads from its build context when built for one catalogue entry: only the
 * stages the target needs (as BuildKit builds), with ARG defaults, the entry's args and ENV expanded.
 */
export function analyseDockerfile(text: string, options: BuildOptions): DockerfileAnalysis {
  const dockerfile = DockerfileParser.parse(text);
  const escape = dockerfile.getEscapeCharacter();
  const starts = lineOffsets(text);
  const predefined = platformArgs(options.platform);
  const global = new Map<string, string>(predefined);
  const stages: Stage[] = [];
  const problems: DockerfileProblem[] = [];
  let stageArgs = new Map<string, string | undefined>();

  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword();
    const line = instruction.getRange().start.line + 1;
    const stage = stages[stages.length - 1];
    const lookup = (name: string) =>
      stage === undefined ? global.get(name) : (stage.env.get(name) ?? stageArgs.get(name));
    const expand = (word: string, quotes = false, unset?: Set<string>) =>
      expandWord(word, unset === undefined ? lookup : (name) => lookup(name) ?? (unset.add(name), undefined), {
        escape,
        quotes,
      });

    if (instruction instanceof Arg) {
      for (const property of instruction.getProperties()) {
        const name = property.getName();
        const given = options.args.get(name);
        const fallback = property.getValue() === null ? undefined : expand(property.getValue() ?? '');
        if (stage === undefined) {
          const value = given ?? fallback ?? predefined.get(name);
          if (value === undefined) global.delete(name);
          else global.set(name, value);
        } else stageArgs.set(name, given ?? fallback ?? global.get(name) ?? predefined.get(name));
      }
    } else if (keyword === 'FROM') {
      const words = instruction.getArguments().map((a) => a.getValue());
      const base = expandWord(words[0] ?? '', (n) => global.get(n), { escape, quotes: true });
      const name = words[1]?.toLowerCase() === 'as' ? words[2]?.toLowerCase() : undefined;
      const parent = stageRef(base, stages);
      const parentStage = typeof parent === 'number' ? undefined : stages.find((s) => s.name === parent);
      const deps = new Set<string | number>(parent === undefined || typeof parent === 'number' ? [] : [parent]);
      const images = parent === undefined && base.toLowerCase() !== 'scratch' ? [{ reference: base, line }] : [];
      stages.push({ name, line, deps, reads: [], remotes: [], images, env: new Map(parentStage?.env ?? []) });
      stageArgs = new Map();
    } else if (stage === undefined) {
      if (keyword !== '') problems.push({ line, message: `${keyword} before the first FROM` });
    } else if (instruction instanceof Env) {
      for (const property of instruction.getProperties()) {
        stage.env.set(property.getName(), expand(property.getValue() ?? ''));
      }
    } else if ((keyword === 'COPY' || keyword === 'ADD') && instruction instanceof ModifiableInstruction) {
      collectCopy(instruction, keyword, stage, stages, { text, starts, escape, expand });
    } else if (keyword === 'RUN' && instruction instanceof ModifiableInstruction) {
      collectMounts(instruction, stage, stages, expand);
    }
  }

  if (stages.length === 0)
    return {
      reads: [],
      remotes: [],
      images: [],
      problems: [...problems, { line: 1, message: 'no FROM instruction: nothing is built' }],
    };
  const wanted =
    options.target === undefined
      ? stages.length - 1
      : stages.findIndex((s) => s.name === options.target?.toLowerCase());
  if (wanted < 0) {
    const named = stages.flatMap((s) => (s.name === undefined ? [] : [`"${s.name}"`]));
    const known = named.length === 0 ? 'it names no stage ("FROM … AS name")' : `its stages are ${named.join(', ')}`;
    return {
      reads: [],
      remotes: [],
      images: [],
      problems: [
        ...problems,
        { line: 1, message: `build target "${options.target}" is not a stage of this Dockerfile: ${known}` },
      ],
    };
  }
  const used = reachableStages(stages, wanted);
  const picked = stages.filter((_, i) => used.has(i));
  return {
    reads: picked.flatMap((s) => s.reads),
    remotes: picked.flatMap((s) => s.remotes),
    images: picked.flatMap((s) => s.images),
    problems,
  };
}

interface WordContext {
  readonly text: string;
  readonly starts: readonly number[];
  readonly escape: string;
  readonly expand: (word: string, quotes?: boolean, unset?: Set<string>) => string;
}

function collectCopy(
  instruction: ModifiableInstruction,
  keyword: 'COPY' | 'ADD',
  stage: Stage,
  stages: readonly Stage[],
  ctx: WordContext,
): void {
  const flags = instruction.getFlags();
  const from = flags.find((f) => f.getName() === 'from');
  if (from !== undefined) {
    const value = ctx.expand(from.getValue() ?? '');
    const ref = stageRef(value, stages);
    if (ref !== undefined) stage.deps.add(ref);
    else stage.images.push({ reference: value, line: from.getRange().start.line + 1 });
    return; // another stage or an image: not a context read
  }
  const words = instructionWords(instruction, ctx.text, ctx.starts, ctx.escape);
  for (const word of words.slice(0, -1)) {
    const unset = new Set<string>();
    const source = ctx.expand(word.raw, !word.json, unset);
    if (keyword === 'ADD' && REMOTE.test(source))
      stage.remotes.push({ url: source, line: word.line, unset: [...unset] });
    else stage.reads.push({ instruction: keyword, source, line: word.line });
  }
}

function collectMounts(
  instruction: ModifiableInstruction,
  stage: Stage,
  stages: readonly Stage[],
  expand: (word: string) => string,
): void {
  const flags = instruction.getFlags();
  for (const flag of flags) {
    if (flag.getName() !== 'mount') continue;
    const options = new Map<string, string>();
    for (const part of (flag.getValue() ?? '').split(',')) {
      const eq = part.indexOf('=');
      options.set((eq < 0 ? part : part.slice(0, eq)).toLowerCase(), expand(eq < 0 ? '' : part.slice(eq + 1)));
    }
    if ((options.get('type') ?? 'bind') !== 'bind') continue;
    const from = options.get('from');
    if (from !== undefined && from !== '') {
      const ref = stageRef(from, stages);
      if (ref !== undefined) stage.deps.add(ref);
      else stage.images.push({ reference: from, line: flag.getRange().start.line + 1 });
      continue;
    }
    const source = options.get('source') ?? options.get('src') ?? '.';
    stage.reads.push({
      instruction: 'RUN --mount',
      source: source === '' ? '.' : source,
      line: flag.getRange().start.line + 1,
    });
  }
}
