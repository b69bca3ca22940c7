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
    const text = minimal.replace(
      '    inputs:',
      '    platform: linux/arm64\n    args: {b: "2", B: "1", a_: "3"}\n    inputs:',
    );
    const [api] = parseCatalogue(text, FILE).images;
    expect(api?.args).toEqual([
      ['B', '1'],
      ['a_', '3'],
      ['b', '2'],
    ]);
    expect(api?.platform).toBe('linux/arm64');
  });

  it('refuses an unknown key, naming the file and the key path', () => {
    expect(problems(minimal.replace('    context: .', '    context: .\n    contxt: x'))).toEqual([
      `${FILE}:7: images.api.contxt: unknown key`,
    ]);
    expect(problems(`${minimal}extra: 1\n`)).toEqual([`${FILE}:9: extra: unknown key`]);
  });

  it('refuses unsafe paths with the path and the value', () => {
    for (const bad of ['../secrets', '/etc', 'a//b', 'a\\b', '../']) {
      const found = problems(minimal.replace('[services/api]', JSON.stringify([bad])));
      expect(found).toHaveLength(1);
      expect(found[0]).toContain(`${FILE}:8: images.api.inputs[0]: unsafe path`);
      expect(found[0]).toContain(JSON.stringify(bad));
    }
  });

  it('refuses bad names, arg keys and arg values with newlines', () => {
    expect(problems(minimal.replace('  api:', '  Api_1:'))[0]).toContain('images.Api_1: invalid key');
    expect(problems(minimal.replace('    inputs:', '    args: {"1x": "a"}\n    inputs:'))[0]).toContain(
      'images.api.args.1x: invalid key',
    );
    expect(problems(minimal.replace('    inputs:', '    args: {A: "x\\ny"}\n    inputs:'))[0]).toBe(
      `${FILE}:8: images.api.args.A: an arg value must not contain tab, newline or NUL (value "x\\ny")`,
    );
  });

  it('reports every bad field at once', () => {
    const text = minimal.replace('application: pharos', 'application: 7').replace('[services/api]', '["../x", ok]');
    expect(problems(text)).toHaveLength(2);
  });

  it('refuses invalid YAML and duplicate keys with a line number', () => {
    expect(() => parseCatalogue(`${minimal}  api:\n    image: x\n`, FILE)).toThrow(
      /images.yaml:\d+: .*(unique|duplicate)/i,
    );
    expect(() => parseCatalogue('images: [', FILE)).toThrow(CatalogueError);
  });
});

describe('parseCatalogue(): adopting an existing monorepo', () => {
  const second = (image: string) => `${minimal}  cart:
    image: ${image}
    application: pharos
    context: .
    dockerfile: cart/Dockerfile
    inputs: [cart]
`;

  it('refuses two entries with one image repository, naming both and the line', () => {
    expect(problems(second('docker.io/pharos/api'))).toEqual([
      `${FILE}:10: images.cart.image: image "docker.io/pharos/api" is also the image of "api": one repository is one catalogue entry (images told apart only by tag cannot be told apart by the manifests; give each its own repository)`,
    ]);
  });

  it('owned names prefixes ending in "/" and single repositories, bare names included', () => {
    const catalogue = parseCatalogue(
      minimal.replace('images:', 'owned: [pharos/, adservice, ghcr.io/acme/web]\nimages:'),
      FILE,
    );
    expect(catalogue.owned).toEqual(['pharos/', 'adservice', 'ghcr.io/acme/web']);
    expect(problems(minimal.replace('images:', 'owned: ["Pharos/"]\nimages:'))).toEqual([
      `${FILE}:2: owned[0]: must be an image name prefix ending in "/" or one image repository (value "Pharos/")`,
    ]);
  });

  it('normalises "./src/x" and "src/x/" as Compose and Skaffold write them', () => {
    const text = minimal
      .replace('context: .', 'context: ./')
      .replace('dockerfile: services/api/Dockerfile', 'dockerfile: ./services/api/Dockerfile')
      .replace('[services/api]', '[./services/api, contracts/, ./lib/./x/]');
    const [api] = parseCatalogue(text, FILE).images;
    expect([api?.context, api?.dockerfile, ...(api?.inputs ?? [])]).toEqual([
      '.',
      'services/api/Dockerfile',
      'services/api',
      'contracts',
      'lib/x',
    ]);
  });

  it('a missing application says it is required and how to declare an image no Application deploys', () => {
    expect(problems(minimal.replace('    application: pharos\n', ''))).toEqual([
      `${FILE}:3: images.api: "application" is required: name the Argo CD Application whose workloads use this image, or write "deployed: false" for an image no Application deploys`,
    ]);
  });

  it('"deployed: false" declares an image no Application deploys; naming an application as well is refused', () => {
    const [api] = parseCatalogue(minimal.replace('    application: pharos\n', '    deployed: false\n'), FILE).images;
    expect(api?.application).toBeUndefined();
    expect(
      problems(minimal.replace('    application: pharos\n', '    application: pharos\n    deployed: false\n')),
    ).toEqual([
      `${FILE}:6: images.api.deployed: "deployed: false" and "application" contradict each other: keep one (value "pharos")`,
    ]);
    expect(problems(minimal.replace('    application: pharos\n', '    deployed: true\n'))).toEqual([
      `${FILE}:5: images.api.deployed: must be false (an image no Argo CD Application deploys), or absent (value true)`,
    ]);
  });

  it("exclude can be set per image, replacing the catalogue's list for that image only", () => {
    const text = `${minimal.replace('    inputs: [services/api]\n', '    inputs: [services/api]\n    exclude: ["**/fixtures/**"]\n')}  web:
    image: pharos/web
    application: pharos
    context: web
    dockerfile: web/Dockerfile
    inputs: [web]
`;
    const catalogue = parseCatalogue(text, FILE);
    expect(catalogue.images.map((i) => [i.name, i.exclude])).toEqual([
      ['api', ['**/fixtures/**']],
      ['web', DEFAULT_EXCLUDE],
    ]);
  });

  it('a missing required field says "is required" with its line, not "received undefined"', () => {
    expect(problems(minimal.replace('    context: .\n', ''))).toEqual([
      `${FILE}:3: images.api.context: is required (expected string)`,
    ]);
  });
});
