// scripts/install-tools.tsv as data: the one list of programs that the installer (bash) and the test preflight read.
import { z } from 'zod';
import { ToolkitError } from '../errors/toolkit-error.ts';

export type ToolMode = 'demo' | 'devbox' | 'test';

/** How to tell a program is here, each looked for itself (never inferred from another program). */
export type Probe =
  | { readonly kind: 'on-path'; readonly name: string }
  | { readonly kind: 'executable' | 'readable' | 'static'; readonly path: string }
  | { readonly kind: 'answers'; readonly command: string; readonly args: readonly string[] }
  | {
      readonly kind: 'version';
      readonly minimum: readonly [number, number];
      readonly command: string;
      readonly args: readonly string[];
    };

export interface Tool {
  readonly program: string;
  readonly needs: readonly ToolMode[];
  /** The Debian package, or a package of another apt repository (`repository` set), which nothing installs. */
  readonly package: string;
  readonly repository: string | undefined;
  /** Alternatives: the program is here when any one finds it. */
  readonly probes: readonly Probe[];
  readonly why: string;
  readonly line: number;
}

export class ToolListError extends ToolkitError<'bad-tool-list'> {}

const word = z.string().regex(/^[^\s|]+$/, 'one word, without spaces or |');
const absolute = word.regex(/^\//, 'an absolute path');
const probeSchema = z.union([
  z.tuple([z.literal('on-path'), word]).transform(([kind, name]) => ({ kind, name })),
  z.tuple([z.enum(['executable', 'readable', 'static']), absolute]).transform(([kind, path]) => ({ kind, path })),
  z.tuple([z.literal('answers'), word], word).transform(([kind, command, ...args]) => ({ kind, command, args })),
  z
    .tuple([z.literal('version'), z.string().regex(/^\d+\.\d+$/, 'MAJOR.MINOR'), word], word)
    .transform(([kind, minimum, command, ...args]) => {
      const [major, minor] = minimum.split('.').map(Number) as [number, number];
      return { kind, minimum: [major, minor] as const, command, args };
    }),
]);
const lineSchema = z.object({
  program: z.string().regex(/^[a-z0-9][a-z0-9 ._-]*$/, 'a program name'),
  needs: z.array(z.enum(['demo', 'devbox', 'test'])).min(1),
  package: z.string().regex(/^[a-z0-9][a-z0-9+.-]*(@[a-z0-9][a-z0-9.-]*)?$/, 'a package name, or NAME@REPOSITORY'),
  probes: z.array(probeSchema).min(1),
  why: z.string().min(1),
});

const FIELDS = ['program', 'needs', 'package', 'probe', 'why'] as const;

/** Parses the list; a bad line is an error naming the file, the line, the field and the value. */
export function parseToolList(text: string, file: string): Tool[] {
  const tools: Tool[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '' || raw.startsWith('#')) return;
    const fields = raw.split('\t');
    const fail = (field: string, value: string, why: string): never => {
      throw new ToolListError(
        'bad-tool-list',
        `Cannot read ${file} line ${line}: ${field} ${JSON.stringify(value)}: ${why}`,
        {
          exitCode: 2,
          details: { file, line, field, value },
        },
      );
    };
    if (fields.length !== FIELDS.length)
      fail(
        'line',
        raw,
        `expected ${FIELDS.length} tab-separated fields (${FIELDS.join(', ')}), found ${fields.length}`,
      );
    const [program = '', needs = '', pkg = '', probe = '', why = ''] = fields;
    const parsed = lineSchema.safeParse({
      program,
      needs: needs.split(' '),
      package: pkg,
      probes: probe.split('|').map((alternative) => alternative.trim().split(/\s+/)),
      why,
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const key = String(issue?.path[0] ?? 'line');
      const field = key === 'probes' ? 'probe' : key;
      fail(field, fields[FIELDS.indexOf(field as (typeof FIELDS)[number])] ?? raw, issue?.message ?? 'invalid');
      return;
    }
    const [name, repository] = parsed.data.package.split('@') as [string, string | undefined];
    tools.push({ ...parsed.data, package: name, repository, line });
  });
  return tools;
}

/** The programs one mode needs, in the list's order. */
export function toolsFor(tools: readonly Tool[], mode: ToolMode): Tool[] {
  return tools.filter((tool) => tool.needs.includes(mode));
}
