import { describe, expect, it } from 'vitest';
import { detectSyntax, dockerfileSources } from '../../support/buildkit-simulator/dockerfile-sources.ts';

// Ported from moby/buildkit@0865fcc9b78559e856e81dc52b3613701e7be28d:frontend/dockerfile/parser/directives_test.go
// (TestDetectSyntax): the frontend image a Dockerfile makes BuildKit fetch.
describe('detectSyntax (BuildKit v0.16.0 TestDetectSyntax)', () => {
  it.each([
    ['# syntax = dockerfile:experimental // opts\nFROM busybox\n', 'dockerfile:experimental'],
    ['#!/bin/sh\n# syntax = dockerfile:experimental\nFROM busybox\n', 'dockerfile:experimental'],
    ['#!/bin/sh\n\n# syntax = dockerfile:experimental\n', undefined],
    ['FROM busybox\nRUN ls\n', undefined],
    ['//syntax=foo\n//key=value', 'foo'],
    ['#!/bin/sh\n//syntax=x', 'x'],
    ['{"syntax": "foo"}', 'foo'],
    ['{"syntax": "foo"', undefined],
    ['{"syntax": "foo"}\n# syntax=bar', undefined],
  ])('%j names %s', (text, frontend) => {
    expect(detectSyntax(text)).toBe(frontend);
  });
});

describe('dockerfileSources: what the target needs BuildKit to fetch', () => {
  const text = [
    'ARG BASE_REGISTRY=docker.io',
    'ARG BASE=${BASE_REGISTRY}/pharos/base:local',
    'ARG PG_BASE=${BASE_REGISTRY}/pharos/postgres-base:local',
    'FROM ${BASE} AS base',
    'COPY --from=tools:1 /bin/x /bin/x',
    'FROM ${PG_BASE} AS migrate',
    'ADD https://example.org/x.tar /x.tar',
    'FROM base AS worker',
    'RUN --mount=type=bind,from=helper:2,target=/h true',
    'FROM scratch AS empty',
  ].join('\n');

  it('expands the global ARGs, a default after the ARGs before it, and follows only the stages the target reaches', () => {
    expect(dockerfileSources(text, new Map(), 'worker')).toEqual({
      syntax: undefined,
      images: [
        { reference: 'docker.io/pharos/base:local', line: 4 },
        { reference: 'tools:1', line: 5 },
        { reference: 'helper:2', line: 9 },
      ],
      remotes: [],
    });
  });

  it('lets a build argument replace an ARG default, which the later defaults then use', () => {
    const sources = dockerfileSources(text, new Map([['BASE_REGISTRY', 'reg:5000']]), 'migrate');
    expect(sources.images).toEqual([{ reference: 'reg:5000/pharos/postgres-base:local', line: 6 }]);
    expect(sources.remotes).toEqual([{ url: 'https://example.org/x.tar', line: 7 }]);
  });

  it('needs nothing for scratch and refuses a target that is not a stage', () => {
    expect(dockerfileSources(text, new Map(), 'empty').images).toEqual([]);
    expect(() => dockerfileSources(text, new Map(), 'nope')).toThrow('target stage "nope" could not be found');
  });

  it('joins continuation lines and skips comments, as the parser does', () => {
    const sources = dockerfileSources('# a comment\nFROM \\\n  reg:5000/a:1\n', new Map(), undefined);
    expect(sources.images).toEqual([{ reference: 'reg:5000/a:1', line: 2 }]);
  });
});
