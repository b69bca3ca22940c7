// scripts/ci.ts as the workflows call it: the image map from build-changed's step output, and the promotion summary.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript } from '../support/run-script.ts';

let dir: string;
const digest = `sha256:${'a'.repeat(64)}`;
const built = { api: `ghcr.io/acme/api@${digest}` };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ci-script-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('ci.ts image-map', () => {
  it('reads the build-changed JSON from a step output variable and writes pins, step outputs, the built file and a summary', async () => {
    const [pins, output, summary, builtOut] = ['pins.json', 'github-output', 'summary.md', 'built.json'].map((f) =>
      join(dir, f),
    ) as [string, string, string, string];
    const result = runScript(
      'ci.ts',
      [
        'image-map',
        '--built-env',
        'BUILT',
        '--built-out',
        builtOut,
        '--pins-out',
        pins,
        '--github-output',
        output,
        '--summary',
        summary,
      ],
      { env: { ...process.env, BUILT: JSON.stringify(built) } },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(await readFile(pins, 'utf8'))).toEqual({ HEPHAESTUS_IMAGE_API: built.api });
    expect(await readFile(output, 'utf8')).toBe(
      `pins=${JSON.stringify({ HEPHAESTUS_IMAGE_API: built.api })}\nsubjects=${JSON.stringify([{ name: 'ghcr.io/acme/api', digest }])}\n`,
    );
    expect(JSON.parse(await readFile(builtOut, 'utf8'))).toEqual(built);
    expect(await readFile(summary, 'utf8')).toContain(`| \`HEPHAESTUS_IMAGE_API\` | \`${built.api}\` |`);
  });

  it('refuses a build output that is not pinned by digest (exit 1, naming the variable and value) and a missing source (exit 2)', () => {
    const bad = runScript('ci.ts', ['image-map', '--built-env', 'BUILT', '--pins-out', join(dir, 'x.json')], {
      env: { ...process.env, BUILT: '{"api":"ghcr.io/acme/api:latest"}' },
    });
    expect([bad.status, bad.stderr]).toEqual([
      1,
      expect.stringMatching(/\[built\][\s\S]*environment variable BUILT: api: .*ghcr\.io\/acme\/api:latest/),
    ]);
    expect(runScript('ci.ts', ['image-map', '--pins-out', join(dir, 'x.json')]).status).toBe(2);
    expect(runScript('ci.ts', ['nope']).status).toBe(2);
  });
});

describe('ci.ts promotion-summary', () => {
  it("appends the summary of promote.ts's --json output to the step summary file", async () => {
    const output = join(dir, 'promotion.json');
    const summary = join(dir, 'promotion-summary.md');
    await writeFile(
      output,
      JSON.stringify({
        action: 'skip',
        reason: 'already-promoted',
        message: 'x is already promoted',
        environment: 'staging',
        version: null,
        expires: null,
        target: null,
        deployStateCommit: 'b'.repeat(40),
      }),
    );
    const result = runScript('ci.ts', [
      'promotion-summary',
      '--output',
      output,
      '--requested',
      'c'.repeat(40),
      '--summary',
      summary,
    ]);
    expect(result.status, result.stderr).toBe(0);
    expect(await readFile(summary, 'utf8')).toMatch(
      /## Promotion of staging[\s\S]*left alone \(already-promoted\)[\s\S]*does not fetch host metrics/,
    );
  });
});
