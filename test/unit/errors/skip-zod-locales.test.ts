// zod without its languages, in fresh Node processes (module hooks are process-wide): same messages, far fewer modules.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const hook = join(import.meta.dirname, '..', '..', '..', 'scripts', 'lib', 'errors', 'skip-zod-locales.ts');
const cwd = join(import.meta.dirname, '..', '..', '..');

/** Parses bad input with a few schemas and prints the issues' messages and how many zod modules loaded. */
function probe(skip: boolean): { messages: string[]; zodModules: number; skipped: boolean; locales: string[] } {
  const code = `import { registerHooks } from 'node:module';
let zodModules = 0;
registerHooks({ load(url, context, next) { if (url.includes('/node_modules/zod/')) zodModules += 1; return next(url, context); } });
const skipped = ${skip} ? (await import(${JSON.stringify(hook)})).skipZodLocales() : false;
const { z } = await import('zod');
const schema = z.strictObject({ name: z.string().min(3), count: z.number().int(), kind: z.enum(['a', 'b']), at: z.iso.datetime() });
const result = schema.safeParse({ name: 'x', count: 1.5, kind: 'c', at: 'yesterday', extra: 1 });
const wrong = z.string().safeParse(42);
process.stdout.write(JSON.stringify({ messages: [...result.error.issues, ...wrong.error.issues].map((i) => i.message), zodModules, skipped, locales: Object.keys(z.locales) }));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

describe('skipZodLocales', () => {
  it('keeps every English message and loads fewer than half of zod’s modules', () => {
    const published = probe(false);
    const skipped = probe(true);
    expect(skipped.skipped).toBe(true);
    expect(skipped.messages).toEqual(published.messages);
    expect(skipped.messages).toContain('Invalid input: expected string, received number');
    expect(skipped.zodModules).toBeLessThan(published.zodModules / 2);
    expect(skipped.locales).toEqual(['en']);
  });
});
