import { describe, expect, it } from 'vitest';
import { PharosError } from '../../../scripts/lib/pharos/pharos-error.ts';
import { keysByOwner, parseInventory } from '../../../scripts/lib/pharos/secret-inventory.ts';

const text = (keys: Record<string, unknown>) => JSON.stringify({ schema: 1, keys });
function refusal(body: string): PharosError {
  try {
    parseInventory(body, 'devops/secret-keys.json');
  } catch (error) {
    expect(error).toBeInstanceOf(PharosError);
    return error as PharosError;
  }
  throw new Error('expected the inventory to be refused');
}

describe('parseInventory(): the keys pharos generates and who receives them', () => {
  it('accepts one-letter owners and keys, and gives every key 32 characters unless told', () => {
    expect(
      parseInventory(text({ A: { owners: ['a'] }, _LONG_2: { owners: ['api-2'], length: 16 } }), 'f').keys,
    ).toEqual({ A: { owners: ['a'], length: 32 }, _LONG_2: { owners: ['api-2'], length: 16 } });
  });

  it.each([
    [
      'a key that is no environment variable name',
      { 'DB-PASSWORD': { owners: ['api'] } },
      'must be a letter or "_" followed by letters, digits or "_"',
    ],
    ['a key starting with a digit', { '1DB': { owners: ['api'] } }, 'must be a letter or "_"'],
    ['a key ending in a character a variable cannot hold', { 'DB.': { owners: ['api'] } }, 'must be a letter or "_"'],
    ['an owner that is no DNS label', { DB: { owners: ['Api'] } }, 'must be a DNS label such as "api"'],
    ['an owner ending in "-"', { DB: { owners: ['api-'] } }, 'must be a DNS label'],
    ['an owner starting with "-"', { DB: { owners: ['-api'] } }, 'must be a DNS label'],
    ['an owner listed twice', { DB: { owners: ['api', 'api'] } }, 'lists an owner twice'],
    ['a key without owners', { DB: { owners: [] } }, 'keys.DB.owners'],
    ['a value shorter than 16 characters', { DB: { owners: ['api'], length: 15 } }, 'keys.DB.length'],
    [
      'a "__proto__" key, which the Kubernetes client would drop',
      JSON.parse('{"__proto__": {"owners": ["api"]}}'),
      'must not be "__proto__"',
    ],
  ])('refuses %s (exit 2), naming the file', (_what, keys, says) => {
    const error = refusal(text(keys));
    expect(error).toMatchObject({ code: 'inventory', exitCode: 2, details: { file: 'devops/secret-keys.json' } });
    expect(error.message).toMatch(/^Cannot read the secret inventory "devops\/secret-keys\.json":\n/);
    expect(error.message).toContain(says);
  });

  it('names every problem on a line of its own', () => {
    const lines = refusal(text({ 'A-B': { owners: ['api'] }, C: { owners: ['Api'] } })).message.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('A-B');
    expect(lines[2]).toContain('keys.C.owners');
  });

  it('refuses a file that is not JSON, naming the file', () => {
    const error = refusal('{"schema": 1,');
    expect(error).toMatchObject({ code: 'inventory', exitCode: 2, details: { file: 'devops/secret-keys.json' } });
    expect(error.message).toMatch(/^Cannot read the secret inventory "devops\/secret-keys\.json": not JSON \(/);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });
});

describe('keysByOwner(): each Secret receives only its own keys', () => {
  it("lists owners by name and each owner's keys by name", () => {
    const inventory = parseInventory(
      text({ ZETA: { owners: ['worker', 'api'] }, ALPHA: { owners: ['worker'] }, MID: { owners: ['api', 'worker'] } }),
      'f',
    );
    expect([...keysByOwner(inventory)]).toEqual([
      ['api', ['MID', 'ZETA']],
      ['worker', ['ALPHA', 'MID', 'ZETA']],
    ]);
  });
});
