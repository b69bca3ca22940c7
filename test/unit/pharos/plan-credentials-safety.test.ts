// Decisions of planCredentials() that mutation testing showed no earlier test protected.
import { describe, expect, it } from 'vitest';
import { planCredentials, planIsEmpty } from '../../../scripts/lib/pharos/plan-credentials.ts';
import type { SecretValues } from '../../../scripts/lib/pharos/plan-credentials.ts';
import { PharosError } from '../../../scripts/lib/pharos/pharos-error.ts';
import { parseInventory } from '../../../scripts/lib/pharos/secret-inventory.ts';

const inventoryOf = (keys: Record<string, unknown>) =>
  parseInventory(JSON.stringify({ schema: 1, keys }), 'secret-keys.json');
const inventory = inventoryOf({ DB: { owners: ['api', 'worker'] }, TOKEN: { owners: ['api'], length: 20 } });
const owners = (entries: [string, SecretValues][]) => new Map<string, SecretValues>(entries);
const generate = (key: string, length: number) => `${key}-${length}`;

describe('planCredentials() never changes a recorded value', () => {
  it('generates missing keys in name order, whatever the inventory order, each with its own length', () => {
    const calls: string[] = [];
    const plan = planCredentials({
      inventory: inventoryOf({ ZETA: { owners: ['api'] }, ALPHA: { owners: ['api'], length: 16 } }),
      record: undefined,
      owners: new Map(),
      generate: (key, length) => (calls.push(key), generate(key, length)),
    });
    expect(calls).toEqual(['ALPHA', 'ZETA']);
    expect(plan.record.generated).toEqual(['ALPHA', 'ZETA']);
    expect(plan.record.add).toEqual({ ALPHA: 'ALPHA-16', ZETA: 'ZETA-32' });
  });

  it('refuses a single tampered key naming it ("differs"), with the keys in the error details', () => {
    const run = () =>
      planCredentials({
        inventory,
        record: { DB: 'd', TOKEN: 't' },
        owners: owners([
          ['api', { DB: 'd', TOKEN: 'changed' }],
          ['worker', { DB: 'd' }],
        ]),
        generate,
      });
    expect(run).toThrow(PharosError);
    expect(run).toThrow(
      'Refusing to write credentials: "api-credentials/TOKEN" differs from the record "pharos-generated"; restore the recorded value or delete the key from the Secret, then run again',
    );
    expect(() => run()).toThrow(
      expect.objectContaining({ code: 'tampered', exitCode: 3, details: { keys: ['api-credentials/TOKEN'] } }),
    );
  });

  it('names every Secret holding each disagreeing value when it cannot recover a key', () => {
    const shared = inventoryOf({ DB: { owners: ['api', 'worker', 'jobs'] } });
    const run = () =>
      planCredentials({
        inventory: shared,
        record: undefined,
        owners: owners([
          ['api', { DB: 'a' }],
          ['worker', { DB: 'a' }],
          ['jobs', { DB: 'b' }],
        ]),
        generate,
      });
    expect(run).toThrow(
      'Cannot recover key "DB" for "pharos-generated": the Secrets hold different values (api-credentials, worker-credentials / jobs-credentials); delete the wrong key from its Secret and run again',
    );
    expect(() => run()).toThrow(
      expect.objectContaining({
        code: 'disagree',
        exitCode: 3,
        details: { key: 'DB', secrets: ['api-credentials', 'worker-credentials', 'jobs-credentials'] },
      }),
    );
  });

  it("reports an owner's foreign keys sorted", () => {
    const plan = planCredentials({
      inventory,
      record: { DB: 'd', TOKEN: 't' },
      owners: owners([
        ['api', { ZZ: '1', DB: 'd', AA: '2', TOKEN: 't' }],
        ['worker', { DB: 'd' }],
      ]),
      generate,
    });
    expect(plan.owners[0]?.foreign).toEqual(['AA', 'ZZ']);
  });
});

describe('planIsEmpty(): a plan that writes nothing', () => {
  const complete = owners([
    ['api', { DB: 'd', TOKEN: 't' }],
    ['worker', { DB: 'd' }],
  ]);

  it('is empty only when the record exists, gains nothing, and every owner Secret exists and gains nothing', () => {
    expect(
      planIsEmpty(planCredentials({ inventory, record: { DB: 'd', TOKEN: 't' }, owners: complete, generate })),
    ).toBe(true);
  });

  it('is not empty when one owner Secret still gains a key', () => {
    expect(
      planIsEmpty(
        planCredentials({
          inventory,
          record: { DB: 'd', TOKEN: 't' },
          owners: owners([
            ['api', { DB: 'd', TOKEN: 't' }],
            ['worker', {}],
          ]),
          generate,
        }),
      ),
    ).toBe(false);
  });

  it('is not empty when the record gains a key recovered from complete owners', () => {
    const plan = planCredentials({ inventory, record: { TOKEN: 't' }, owners: complete, generate });
    expect(plan.record.recovered).toEqual(['DB']);
    expect(planIsEmpty(plan)).toBe(false);
  });

  it('is not empty when the record Secret does not exist yet, even with nothing to add', () => {
    expect(
      planIsEmpty(planCredentials({ inventory: inventoryOf({}), record: undefined, owners: new Map(), generate })),
    ).toBe(false);
  });

  it('is not empty when an owner Secret does not exist', () => {
    expect(
      planIsEmpty(
        planCredentials({
          inventory,
          record: { DB: 'd', TOKEN: 't' },
          owners: owners([['api', { DB: 'd', TOKEN: 't' }]]),
          generate,
        }),
      ),
    ).toBe(false);
  });
});
