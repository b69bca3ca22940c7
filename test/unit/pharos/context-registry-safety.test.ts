// Decisions of the context registry that mutation testing showed no earlier test protected.
import { describe, expect, it } from 'vitest';
import { parseContextRegistry, selectContexts } from '../../../scripts/lib/pharos/context-registry.ts';
import { PharosError } from '../../../scripts/lib/pharos/pharos-error.ts';

const context = (name: string, over: Record<string, unknown> = {}) => ({
  database: name,
  role: name,
  binding: `${name.toUpperCase()}_DATABASE_PASSWORD`,
  migrations: `migrations/${name}`,
  ...over,
});
const registry = (contexts: Record<string, unknown>) => JSON.stringify({ schema: 1, contexts });
const failure = (text: string): PharosError => {
  try {
    parseContextRegistry(text, 'devops/contexts.json');
  } catch (error) {
    return error as PharosError;
  }
  throw new Error('expected the registry to be refused');
};

describe('the context registry refuses names PostgreSQL or Kubernetes would read otherwise', () => {
  it.each([
    [
      'a database name with an upper-case start',
      { database: 'Catalog' },
      'contexts.catalog.database: must be a lower-case PostgreSQL name',
    ],
    ['a database name with a trailing statement', { database: 'catalog;' }, 'contexts.catalog.database'],
    [
      'a role name with an upper-case start',
      { role: 'Reader' },
      'contexts.catalog.role: must be a lower-case PostgreSQL name',
    ],
    [
      'an absolute migrations path',
      { migrations: '/srv/migrations' },
      'contexts.catalog.migrations: must be a path inside the repository',
    ],
  ])('refuses %s', (_what, over, message) => {
    const error = failure(registry({ catalog: context('catalog', over) }));
    expect(error).toBeInstanceOf(PharosError);
    expect(error.message).toContain(message);
    expect(error).toMatchObject({ code: 'registry', details: { file: 'devops/contexts.json' } });
  });

  it.each([['Catalog'], ['catalog!'], ['9catalog']])('refuses the context name %j, naming the rule', (name) => {
    expect(failure(registry({ [name]: context('catalog') })).message).toContain(
      'must be lower-case letters, digits and "-"',
    );
  });

  it('accepts a migrations folder written with a trailing slash', () => {
    expect(
      parseContextRegistry(registry({ catalog: context('catalog', { migrations: 'migrations/catalog/' }) }), 'r.json')
        .contexts['catalog']?.migrations,
    ).toBe('migrations/catalog/');
  });

  it('refuses a file that is not JSON, naming the file', () => {
    const error = failure('{ "schema": 1,');
    expect(error).toMatchObject({ code: 'registry', details: { file: 'devops/contexts.json' } });
    expect(error.message).toMatch(/^Cannot read the context registry "devops\/contexts\.json": not JSON \(/);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it('refuses two contexts sharing a role, naming the context that has it first', () => {
    const error = failure(registry({ catalog: context('catalog'), shop: context('shop', { role: 'catalog' }) }));
    expect(error.message).toBe(
      'Cannot read the context registry "devops/contexts.json": contexts.shop.role: "catalog" is already context "catalog"\'s',
    );
    expect(error).toMatchObject({ code: 'registry', details: { file: 'devops/contexts.json' } });
  });

  it('lets one context use the same name for its database and its role', () => {
    expect(() => parseContextRegistry(registry({ catalog: context('catalog') }), 'r.json')).not.toThrow();
  });
});

describe('selectContexts()', () => {
  const all = parseContextRegistry(
    registry({ shop: context('shop'), catalog: context('catalog'), audit: context('audit') }),
    'r.json',
  );

  it('gives every context in name order when none is named', () => {
    expect(selectContexts(all, [], 'r.json').map((c) => c.name)).toEqual(['audit', 'catalog', 'shop']);
  });

  it('gives only the named contexts, in name order, with their settings', () => {
    expect(selectContexts(all, ['shop', 'audit'], 'r.json')).toEqual([
      { name: 'audit', ...context('audit') },
      { name: 'shop', ...context('shop') },
    ]);
  });

  it('refuses unknown contexts as a usage error (exit 2), naming each and every known one', () => {
    const run = () => selectContexts(all, ['shop', 'nope', 'gone'], 'devops/contexts.json');
    expect(run).toThrow(PharosError);
    expect(run).toThrow(
      'Cannot provision "nope", "gone": not in the context registry "devops/contexts.json" (known: audit, catalog, shop)',
    );
    expect(run).toThrow(expect.objectContaining({ code: 'registry', exitCode: 2 }));
  });
});
