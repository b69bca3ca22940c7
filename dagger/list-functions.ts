#!/usr/bin/env node
// `make dagger-functions`: the module's functions as `dagger functions` lists them, read from the source with the
// TypeScript parser (as the SDK's introspector does), so no engine is needed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const FILE = fileURLToPath(new URL('./src/index.ts', import.meta.url));

interface Fn {
  readonly name: string;
  readonly args: string;
  readonly doc: string;
  readonly check: boolean;
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const decoratorNames = (node: ts.Node) =>
  (ts.canHaveDecorators(node) ? (ts.getDecorators(node) ?? []) : []).map((d) =>
    d.expression.getText().replace(/\(.*$/s, ''),
  );

function functions(source: ts.SourceFile): Fn[] {
  const found: Fn[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) && decoratorNames(node).includes('object')) {
      for (const member of node.members) {
        if (!ts.isMethodDeclaration(member) || !decoratorNames(member).includes('func')) continue;
        const doc = ts
          .getJSDocCommentsAndTags(member)
          .map((d) => (typeof d.comment === 'string' ? d.comment : ''))
          .join(' ')
          .replace(/\s+/g, ' ')
          .trim();
        const args = member.parameters
          .map(
            (p) =>
              `--${kebab(p.name.getText())} ${p.type?.getText() ?? 'unknown'}${p.questionToken ? ' (optional)' : decoratorNames(p).includes('argument') ? ' (default: the repository)' : ''}`,
          )
          .join(' ');
        found.push({ name: kebab(member.name.getText()), args, doc, check: decoratorNames(member).includes('check') });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const fns = functions(ts.createSourceFile(FILE, readFileSync(FILE, 'utf8'), ts.ScriptTarget.ES2022, true));
const width = Math.max(...fns.map((f) => f.name.length)) + 2;
process.stdout.write(`${'Name'.padEnd(width)}Description\n`);
for (const fn of fns) {
  process.stdout.write(
    `${fn.name.padEnd(width)}${fn.doc}${fn.check ? ' [check]' : ''}\n${' '.repeat(width)}  ${fn.args}\n`,
  );
}
