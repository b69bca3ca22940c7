// What the module's source imports, followed file by file: the scripts/lib files dagger/lib/ must hold, the npm
// packages dagger/package.json must declare, and any import that leaves what Dagger's runtime copies (dagger/).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface LibClosure {
  /** Paths under scripts/lib/ (and so under dagger/lib/), sorted. */
  readonly libraryFiles: string[];
  /** Bare package names imported by the module or the copied library, sorted. */
  readonly packages: string[];
  /** Imports that resolve outside the module folder, or to nothing. */
  readonly outside: { readonly from: string; readonly specifier: string }[];
}

const posix = (path: string) => path.split(sep).join('/');

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** `module` is dagger/, `library` scripts/lib/: a `../lib/x.ts` import from dagger/src is scripts/lib/x.ts copied. */
export function libClosure(module: string, library: string): LibClosure {
  const copy = join(module, 'lib');
  const libraryFiles = new Set<string>();
  const packages = new Set<string>();
  const outside: { from: string; specifier: string }[] = [];
  const seen = new Set<string>();
  // Module files are read where they are; library files from scripts/lib, the copy's origin.
  const queue = sourceFiles(join(module, 'src'));
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const inLibrary = file.startsWith(library + sep);
    const asCopied = inLibrary ? join(copy, relative(library, file)) : file;
    const text = readFileSync(file, 'utf8');
    // A worker is started from a file named by URL, not imported: it must be copied all the same.
    const workers = [...text.matchAll(/new URL\('(\.[^']+\.ts)', import\.meta\.url\)/g)].map((m) => m[1] as string);
    const imports = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
    for (const specifier of [...imports, ...workers]) {
      if (specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
      if (!specifier.startsWith('.')) {
        packages.add(packageName(specifier));
        continue;
      }
      const target = resolve(dirname(asCopied), specifier);
      const from = posix(relative(module, asCopied));
      if (target.startsWith(copy + sep)) {
        const original = join(library, relative(copy, target));
        if (!existsSync(original)) outside.push({ from, specifier });
        else {
          libraryFiles.add(posix(relative(library, original)));
          queue.push(original);
        }
      } else if (target.startsWith(join(module, 'src') + sep) && existsSync(target)) queue.push(target);
      else outside.push({ from, specifier });
    }
  }
  return { libraryFiles: [...libraryFiles].sort(), packages: [...packages].sort(), outside };
}
