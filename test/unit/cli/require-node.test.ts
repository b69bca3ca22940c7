import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../../../scripts/lib/cli/require-node.ts';

const SCRIPTS = resolve(import.meta.dirname, '../../../scripts');

describe('entry points refuse a Node older than 24 in one sentence', () => {
  it("names the running version and how to run the project's own Node", () => {
    expect(nodeVersionProblem({ node: '23.6.1' })).toBe(
      'needs Node 24 or newer and this is Node 23.6.1: run it as "npx node scripts/<command>.ts" (the project\'s own Node 24, installed by npm ci) or through make',
    );
  });

  it('accepts Node 24 and later, and Deno', () => {
    expect(nodeVersionProblem({ node: '24.0.0' })).toBeUndefined();
    expect(nodeVersionProblem({ node: '25.1.0' })).toBeUndefined();
    expect(nodeVersionProblem({ node: '22.11.0', deno: '2.5.0' })).toBeUndefined();
  });

  it('every entry point imports the check before anything else', () => {
    const entries = readdirSync(SCRIPTS).filter((name) => name.endsWith('.ts'));
    expect(entries.length).toBeGreaterThan(5);
    const late = entries.filter((name) => {
      const firstImport = readFileSync(join(SCRIPTS, name), 'utf8')
        .split('\n')
        .find((line) => line.startsWith('import '));
      return firstImport !== "import './lib/cli/require-node.ts';";
    });
    expect(late).toEqual([]);
  });
});
