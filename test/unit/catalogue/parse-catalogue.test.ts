import { describe, expect, it } from 'vitest';
import { parseCatalogue, CatalogueError, DEFAULT_EXCLUDE } from '../../../scripts/lib/catalogue/index.ts';

const FILE = 'gitops/manifests/images.yaml';

function problems(text: string): string[] {
  try {
    parseCatalogue(text, FILE);
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogueError);
    return ((error as CatalogueError).details.problems as string[] | undefined) ?? [(error as Error).message];
  }
  throw new Error('expected the catalogue to be refused');
}

const minimal = `platform: linux/amd64
images:
  api:
    image: pharos/api
    application: pharos
    context: .
    dockerfile: services/api/Dockerfile
    inputs: [services/api]
`;

describe('parseCatalogue()', () => {
  it('applies the default exclude list and derives owned prefixes from image names', () => {
    const text = `${minimal}  web:
    image: registry.example.com:5000/team/web
    application: web
    context: web
    dockerfile: web/Dockerfile
    inputs: [web]
`;
    const catalogue = parseCatalogue(text, FILE);
    expect(catalogue.exclude).toEqual(DEFAULT_EXCLUDE);
    expect(catalogue.owned).toEqual(['pharos/', 'registry.example.com:5000/team/']);
    expect(catalogue.images.map((i) => [i.name, i.platform])).toEqual([
      ['api', 'linux/amd64'],
      ['web', 'linux/amd64'],
    ]);
  });

  it('sorts args bytewise by key and resolves the platform override', () => {
    const text = minimal.replace('    inputs:', '    platform: linux/arm64\n    args: {b: "2", B: "1", a_: "3"}\n    inputs:');
    const [api] = parseCatalogue(text, FILE).images;
    expect(api?.args).toEqual([
      ['B', '1'],
      ['a_', '3'],
      ['b', '2'],
    ]);
    expect(api?.platform).toBe('linux/arm64');
  });

  it('refuses an unknown key, naming the file and the key path', () => {
    expect(problems(minimal.replace('    context: .', '    context: .\n    contxt: x'))).toEqual([`${FILE}: images.api.contxt: unknown key`]);
    expect(problems(`${minimal}extra: 1\n`)).toEqual([`${FILE}: extra: unknown key`]);
  });

  it('refuses unsafe paths with the path and the value', () => {
    for (const bad of ['../secrets', '/etc', 'a//b', 'a/./b', 'a/', 'a\\b']) {
      const found = problems(minimal.replace('[services/api]', JSON.stringify([bad])));
      expect(found).toHaveLength(1);
      expect(found[0]).toContain(`${FILE}: images.api.inputs[0]: unsafe path`);
      expect(found[0]).toContain(JSON.stringify(bad));
    }
  });

  it('refuses bad names, arg keys and arg values with newlines', () => {
    expect(problems(minimal.replace('  api:', '  Api_1:'))[0]).toContain('images.Api_1: invalid key');
    expect(problems(minimal.replace('    inputs:', '    args: {"1x": "a"}\n    inputs:'))[0]).toContain('images.api.args.1x: invalid key');
    expect(problems(minimal.replace('    inputs:', '    args: {A: "x\\ny"}\n    inputs:'))[0]).toBe(
      `${FILE}: images.api.args.A: an arg value must not contain tab, newline or NUL (value "x\\ny")`,
    );
  });

  it('reports every bad field at once', () => {
    const text = minimal.replace('application: pharos', 'application: 7').replace('[services/api]', '["../x", ok]');
    expect(problems(text)).toHaveLength(2);
  });

  it('refuses invalid YAML and duplicate keys with a line number', () => {
    expect(() => parseCatalogue(`${minimal}  api:\n    image: x\n`, FILE)).toThrow(/images.yaml:\d+: .*(unique|duplicate)/i);
    expect(() => parseCatalogue('images: [', FILE)).toThrow(CatalogueError);
  });
});
