import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseCatalogue } from '../../../scripts/lib/catalogue/index.ts';
import { checkPlatform, RULES } from '../../../scripts/lib/check/index.ts';
import { isToolkitError } from '../../../scripts/lib/errors/index.ts';
import { memorySource } from './memory-source.ts';

const word = fc.stringMatching(/^[a-z0-9./*?$\[\]{}:\-_"'\\=<`]{0,12}$/);
const pathSeg = fc.constantFrom('a', 'b', 'src', 'lib', 'tests', 'x.md', '.', '..', 'docs', '*', 'c d');
const path = fc.array(pathSeg, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));

const instruction = fc.oneof(
  fc
    .tuple(fc.constantFrom('COPY', 'ADD', 'copy'), fc.array(fc.oneof(word, path), { minLength: 0, maxLength: 4 }))
    .map(([k, w]) => `${k} ${w.join(' ')}`),
  fc.tuple(word, word).map(([a, b]) => `ARG ${a}=${b}`),
  fc.tuple(word, word).map(([a, b]) => `ENV ${a}=${b}`),
  fc.tuple(word, fc.option(word)).map(([image, stage]) => `FROM ${image}${stage === null ? '' : ` AS ${stage}`}`),
  fc.tuple(word, path).map(([from, src]) => `COPY --from=${from} ${src} /x`),
  fc
    .tuple(fc.constantFrom('bind', 'cache', ''), path, word)
    .map(([t, s, f]) => `RUN --mount=type=${t},source=${s},from=${f} true`),
  fc
    .array(fc.oneof(word, path), { maxLength: 3 })
    .map((w) => `COPY [${w.map((x) => JSON.stringify(x)).join(', ')}, "/d"]`),
  fc.constant('COPY <<EOF /etc/x\nbody $X\nEOF'),
  fc.constantFrom('# escape=`', '# syntax=docker/dockerfile:1', 'COPY a \\', '# comment', ''),
  fc.string({ maxLength: 30 }),
);
const dockerfile = fc.array(instruction, { maxLength: 12 }).map((lines) => lines.join('\n'));

/** Mostly valid values, sometimes a bad one, so both outcomes (findings, one clear error) are exercised. */
const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: good, weight: 19 }, { arbitrary: bad, weight: 1 });
const goodPath = fc
  .array(fc.constantFrom('a', 'b', 'src', 'lib', 'tests', 'x.md', 'docs', 'c d', 'Dockerfile'), {
    minLength: 1,
    maxLength: 3,
  })
  .map((s) => s.join('/'));
const repoPath = mostly(fc.oneof(goodPath, fc.constant('.')), path);

const entry = fc.record({
  image: mostly(
    fc.constantFrom('acme/api', 'acme/web', 'other/x', 'docker.io/acme/y'),
    fc.constantFrom('Bad Image', 'acme/x:1'),
  ),
  application: mostly(fc.constantFrom('shop', 'nope'), fc.constant('')),
  context: repoPath,
  dockerfile: mostly(fc.constantFrom('Dockerfile', 'a/Dockerfile', 'missing/Dockerfile'), fc.constant('../x')),
  target: fc.option(word, { nil: undefined }),
  args: fc.option(fc.dictionary(mostly(fc.constantFrom('APP', 'BASE', 'X'), fc.constant('bad key')), word), {
    nil: undefined,
  }),
  inputs: fc.array(repoPath, { minLength: 1, maxLength: 3 }),
});
const catalogue = fc
  .record({
    exclude: fc.option(fc.array(fc.constantFrom('**/*.md', '**/tests/**', '*', '[', '**'), { maxLength: 3 }), {
      nil: undefined,
    }),
    owned: fc.option(
      fc.array(mostly(fc.constantFrom('acme/', 'docker.io/acme/'), fc.constant('bad')), { maxLength: 2 }),
      { nil: undefined },
    ),
    images: fc.dictionary(mostly(fc.constantFrom('api', 'web', 'x'), fc.constant('Bad')), entry, {
      minKeys: 1,
      maxKeys: 3,
    }),
  })
  .map((c) => JSON.stringify({ platform: 'linux/amd64', ...c }));

const manifest = fc.oneof(
  fc
    .array(fc.constantFrom('acme/api', 'acme/other:1', 'acme/web@sha256:x', 'nginx', '', 'docker.io/acme/web'), {
      maxLength: 3,
    })
    .map(
      (images) =>
        `kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n${images.map((i) => `        - image: ${JSON.stringify(i)}`).join('\n')}\n`,
    ),
  fc.constant(
    'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop}\nspec: {source: {kustomize: {images: [a=b, "acme/z:1"]}}}\n',
  ),
  fc.string({ maxLength: 40 }),
);

describe('check never crashes', () => {
  it('generates valid catalogues often enough for the property to mean something', () => {
    const samples = fc.sample(catalogue, { numRuns: 400, seed: 42 });
    const valid = samples.filter((text) => {
      try {
        return parseCatalogue(text, 'images.yaml').images.length > 0;
      } catch {
        return false;
      }
    });
    expect(valid.length).toBeGreaterThan(samples.length / 4);
  });

  it('turns any catalogue, Dockerfile and manifest into findings or one clear error', async () => {
    await fc.assert(
      fc.asyncProperty(catalogue, dockerfile, dockerfile, manifest, async (cat, df1, df2, m) => {
        const files = {
          'gitops/manifests/images.yaml': cat,
          Dockerfile: df1,
          'a/Dockerfile': df2,
          'gitops/manifests/m.yaml': m,
          'src/x.md': 'x',
          'lib/y': 'y',
          'a/b/tests/z': 'z',
        };
        let parsed;
        try {
          parsed = parseCatalogue(cat, 'gitops/manifests/images.yaml');
        } catch (error) {
          expect(isToolkitError(error) && error.exitCode === 2 && error.message.startsWith('Cannot ')).toBe(true);
          return;
        }
        const findings = await checkPlatform(memorySource(files), parsed);
        for (const f of findings) {
          expect(Object.keys(RULES)).toContain(f.rule);
          expect(f.severity).toBe(RULES[f.rule]);
          expect(f.line).toBeGreaterThanOrEqual(1);
          expect(f.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });
});
