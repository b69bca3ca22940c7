import * as nodeModule from 'node:module';

type ResolveHook = (
  specifier: string,
  context: unknown,
  next: (specifier: string, context: unknown) => { url: string },
) => { url: string; shortCircuit?: boolean };

/** zod's locale index, which every zod entry point re-exports (`z.locales`): about 60 modules, one per language. */
const LOCALE_INDEX = /\/node_modules\/zod\/v4\/locales\/index\.js$/;

/**
 * Loads zod's locale index as English only. Every zod entry point (`zod`, `zod/mini`, `zod/v4/core`) imports all its
 * languages, about half of the modules a command loads; the project only ever uses English, whose messages zod sets by
 * itself (classic/schemas.js imports `locales/en.js` directly), so error messages are unchanged. Only `z.locales.<other>`
 * is lost, which nothing here calls. Under Deno zod loads as published.
 */
export function skipZodLocales(): boolean {
  // Deno 2.9 has registerHooks, but a resolve hook there sends CommonJS packages (cmd-ts) down another loader path,
  // where chalk's `#ansi-styles` import does not resolve: under Deno zod loads as published.
  if (process.versions.deno !== undefined) return false;
  const register = (nodeModule as { registerHooks?: (hooks: { resolve: ResolveHook }) => unknown }).registerHooks;
  if (typeof register !== 'function') return false;
  register({
    resolve(specifier, context, next) {
      const resolved = next(specifier, context);
      if (!LOCALE_INDEX.test(resolved.url)) return resolved;
      const en = new URL('en.js', resolved.url).href;
      return {
        url: `data:text/javascript,${encodeURIComponent(`export { default as en } from ${JSON.stringify(en)};`)}`,
        shortCircuit: true,
      };
    },
  });
  return true;
}
