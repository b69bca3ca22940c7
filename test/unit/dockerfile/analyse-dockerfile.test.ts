import { describe, expect, it } from 'vitest';
import { analyseDockerfile } from '../../../scripts/lib/dockerfile/index.ts';
import type { BuildOptions } from '../../../scripts/lib/dockerfile/index.ts';

const build = (text: string, options: Partial<BuildOptions> = {}) =>
  analyseDockerfile(text, { args: new Map(), platform: 'linux/amd64', ...options });
const sources = (text: string, options: Partial<BuildOptions> = {}) =>
  build(text, options).reads.map((r) => [r.source, r.line]);

describe('analyseDockerfile: sources', () => {
  it('lists every source of a line with several sources, never the destination', () => {
    expect(sources('FROM scratch\nCOPY a b/ c.txt /dst/\n')).toEqual([
      ['a', 2],
      ['b/', 2],
      ['c.txt', 2],
    ]);
  });

  it('decodes the JSON-array form, spaces inside a source included', () => {
    expect(sources('FROM scratch\nCOPY ["my dir/x", "y", "/dst/"]\n')).toEqual([
      ['my dir/x', 2],
      ['y', 2],
    ]);
  });

  it('treats invalid JSON after COPY as the shell form, as BuildKit does', () => {
    expect(sources('FROM scratch\nCOPY [a /dst/\n')).toEqual([['[a', 2]]);
  });

  it('joins a quoted shell-form source with spaces into one word', () => {
    expect(sources('FROM scratch\nCOPY "a b" \'c d\' /dst/\n')).toEqual([
      ['a b', 2],
      ['c d', 2],
    ]);
  });

  it('keeps glob sources as written for matching against the tree', () => {
    expect(sources('FROM scratch\nCOPY *.json src/?.ts /dst/\n')).toEqual([
      ['*.json', 2],
      ['src/?.ts', 2],
    ]);
  });

  it('reports each source on its own line across line continuations and comment lines', () => {
    const text = 'FROM scratch\nCOPY a \\\n  b \\\n# a comment inside the instruction\n  c /dst/\n';
    expect(sources(text)).toEqual([
      ['a', 2],
      ['b', 3],
      ['c', 5],
    ]);
  });

  it('reads Windows line endings, continuations included', () => {
    expect(sources('FROM scratch\r\nCOPY a \\\r\n  b /dst/\r\nCOPY c /\r\n')).toEqual([
      ['a', 2],
      ['b', 3],
      ['c', 4],
    ]);
  });

  it('ignores comments and `# syntax=` directives', () => {
    expect(sources('# syntax=docker/dockerfile:1\n# COPY nothing /x\nFROM scratch\nCOPY real /x\n')).toEqual([
      ['real', 4],
    ]);
  });

  it('honours `# escape=` (backtick continuations, backslashes as plain characters)', () => {
    const text = '# escape=`\nFROM scratch\nCOPY a `\n  b /dst/\nCOPY win\\tools /x\n';
    expect(sources(text)).toEqual([
      ['a', 3],
      ['b', 4],
      ['win\\tools', 5],
    ]);
  });

  it('does not read heredoc bodies or markers as context sources', () => {
    const text =
      'FROM scratch\nCOPY <<EOF /etc/conf\nnot/a/source\nEOF\nADD --chmod=755 <<-EOT real.txt /dst/\n\tbody words\n\tEOT\nCOPY after /x\n';
    expect(sources(text)).toEqual([
      ['real.txt', 5],
      ['after', 8],
    ]);
  });
});

describe('analyseDockerfile: stages', () => {
  const multi = [
    'FROM golang AS build', // 1
    'COPY src/ /src/', // 2
    'FROM scratch AS unused', // 3
    'COPY docs/ /docs/', // 4
    'FROM alpine AS final', // 5
    'COPY --from=build /out /app', // 6
    'COPY --from=nginx:1.27 /etc/nginx /etc/nginx', // 7
    'COPY run.sh /app/', // 8
  ].join('\n');

  it('does not count --from=<stage> or --from=<image> as context reads, but builds the named stage', () => {
    expect(sources(multi)).toEqual([
      ['src/', 2],
      ['run.sh', 8],
    ]);
  });

  it('builds only the stages the target needs', () => {
    expect(sources(multi, { target: 'unused' })).toEqual([['docs/', 4]]);
    expect(sources(multi, { target: 'BUILD' })).toEqual([['src/', 2]]);
  });

  it('follows FROM <stage> and --from=<index>', () => {
    const text = 'FROM a AS base\nCOPY one /\nFROM b\nCOPY two /\nFROM base AS t1\nCOPY --from=1 /x /y\n';
    expect(sources(text, { target: 't1' })).toEqual([
      ['one', 2],
      ['two', 4],
    ]);
  });

  it('reads stage names past FROM --platform flags', () => {
    const text =
      'FROM --platform=$BUILDPLATFORM golang AS build\nCOPY go.mod /\nFROM scratch\nCOPY --from=build /bin/app /app\n';
    expect(sources(text)).toEqual([['go.mod', 2]]);
  });

  it('reports a target that is not a stage', () => {
    expect(build('FROM a AS web\nCOPY x /\n', { target: 'api' }).problems).toEqual([
      { line: 1, message: 'build target "api" is not a stage of this Dockerfile: its stages are "web"' },
    ]);
  });

  it('reports a Dockerfile without FROM', () => {
    expect(build('# nothing\n').problems[0]?.message).toMatch(/no FROM/);
  });
});

describe('analyseDockerfile: variables', () => {
  it('substitutes ARG defaults, and the entry args over them', () => {
    const text = 'FROM a\nARG APP=gateway\nCOPY ${APP}/ /srv/\nCOPY $APP.conf /etc/\n';
    expect(sources(text)).toEqual([
      ['gateway/', 3],
      ['gateway.conf', 4],
    ]);
    expect(sources(text, { args: new Map([['APP', 'admin']]) })).toEqual([
      ['admin/', 3],
      ['admin.conf', 4],
    ]);
  });

  it('does not let a global ARG into a stage unless the stage declares it, then with its default', () => {
    const text = 'ARG APP=gw\nFROM a\nCOPY x${APP} /\nARG APP\nCOPY y${APP} /\n';
    expect(sources(text)).toEqual([
      ['x', 3],
      ['ygw', 5],
    ]);
  });

  it('ignores entry args the Dockerfile never declares', () => {
    expect(sources('FROM a\nCOPY ${SECRET}dir /\n', { args: new Map([['SECRET', 'leak']]) })).toEqual([['dir', 2]]);
  });

  it('lets ENV win over ARG and passes ENV to child stages', () => {
    const text = 'FROM a AS base\nARG D=arg\nENV D=env\nCOPY $D /\nFROM base\nCOPY ${D}2 /\n';
    expect(sources(text)).toEqual([
      ['env', 4],
      ['env2', 6],
    ]);
  });

  it('expands ${VAR:-default} and ${VAR:+alt}', () => {
    const text = 'FROM a\nARG SET=x\nARG EMPTY\nCOPY ${EMPTY:-fallback} ${SET:+alt} ${EMPTY:+no}z /\n';
    expect(sources(text)).toEqual([
      ['fallback', 4],
      ['alt', 4],
      ['z', 4],
    ]);
  });

  it('provides the automatic platform args from the image platform', () => {
    expect(sources('FROM a\nARG TARGETARCH\nCOPY bin/${TARGETARCH}/tool /\n', { platform: 'linux/arm64' })).toEqual([
      ['bin/arm64/tool', 3],
    ]);
  });
});

describe('analyseDockerfile: ADD and RUN --mount', () => {
  it('lists ADD <url> as a remote source, not a context read', () => {
    const result = build('FROM a\nADD https://example.com/ca.pem /etc/ca.pem\nADD local.tgz /\n');
    expect(result.remotes).toEqual([{ url: 'https://example.com/ca.pem', line: 2, unset: [] }]);
    expect(result.reads.map((r) => r.source)).toEqual(['local.tgz']);
  });

  it('lists ADD of a git remote as a remote source', () => {
    const result = build('FROM a\nADD git@github.com:acme/x.git /src\nADD github.com/acme/y.git#main /y\n');
    expect(result.remotes.map((r) => r.line)).toEqual([2, 3]);
    expect(result.reads).toEqual([]);
  });

  it('reads RUN --mount=type=bind sources (bind is the default type; no source means the whole context)', () => {
    const text =
      'FROM a\nRUN --mount=type=bind,source=go.sum,target=/x --mount=target=/all --mount=type=cache,target=/c make\n';
    expect(build(text).reads).toEqual([
      { instruction: 'RUN --mount', source: 'go.sum', line: 2 },
      { instruction: 'RUN --mount', source: '.', line: 2 },
    ]);
  });

  it('does not read a bind mount from another stage from the context', () => {
    expect(sources('FROM a AS b\nCOPY in /\nFROM c\nRUN --mount=from=b,target=/b ls\n')).toEqual([['in', 2]]);
  });
});

describe('analyseDockerfile: images', () => {
  it('lists the images the target needs from a registry: bases, COPY --from and mount images, never a stage or scratch', () => {
    const text = [
      'ARG BASE_REGISTRY=docker.io',
      'ARG BASE=${BASE_REGISTRY}/pharos/base:local',
      'FROM ${BASE} AS base',
      'FROM scratch AS unused',
      'COPY --from=other:1 /x /x',
      'FROM base AS app',
      'COPY --from=tools:2 /t /t',
      'RUN --mount=from=helper:3,target=/h true',
      'RUN --mount=from=base,target=/b true',
    ].join('\n');
    const images = (args: Map<string, string>) => build(text, { args }).images.map((i) => [i.reference, i.line]);
    expect(images(new Map())).toEqual([
      ['docker.io/pharos/base:local', 3],
      ['tools:2', 7],
      ['helper:3', 8],
    ]);
    expect(images(new Map([['BASE_REGISTRY', 'reg:5000']]))[0]).toEqual(['reg:5000/pharos/base:local', 3]);
  });
});
