// Imported first by every entry point: an older Node says so in one sentence instead of failing deep inside.
import { basename } from 'node:path';

export const MINIMUM_NODE_MAJOR = 24;

/** Why this runtime cannot run the toolkit, or undefined when it can (Deno and Bun bring their own). */
export function nodeVersionProblem(versions: {
  readonly node?: string;
  readonly deno?: string;
  readonly bun?: string;
}): string | undefined {
  if (versions.deno !== undefined || versions.bun !== undefined || versions.node === undefined) return undefined;
  const major = Number(versions.node.split('.')[0]);
  if (major >= MINIMUM_NODE_MAJOR) return undefined;
  return `needs Node ${MINIMUM_NODE_MAJOR} or newer and this is Node ${versions.node}: run it as "npx node scripts/<command>.ts" (the project's own Node ${MINIMUM_NODE_MAJOR}, installed by npm ci) or through make`;
}

const problem = nodeVersionProblem(process.versions as { node?: string; deno?: string; bun?: string });
if (problem !== undefined) {
  process.stderr.write(`${basename(process.argv[1] ?? 'pharos', '.ts')}: ${problem}\n`);
  process.exit(2);
}
