// Node strips types but cannot run decorators: the module's files under dagger/ are compiled by the project's own
// TypeScript (legacy decorators, as the Dagger runtime compiles them); everything else loads as Node loads it.
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const DAGGER = new URL('../../../dagger/', import.meta.url).href;

registerHooks({
  load(url, context, nextLoad) {
    if (!url.startsWith(DAGGER) || !url.endsWith('.ts')) return nextLoad(url, context);
    const file = fileURLToPath(url);
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: {
        experimentalDecorators: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        verbatimModuleSyntax: true,
      },
    });
    return { format: 'module', source: outputText, shortCircuit: true };
  },
});
