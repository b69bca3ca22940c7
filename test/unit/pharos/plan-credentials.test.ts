import { describe, expect, it } from 'vitest';
import { planCredentials, planIsEmpty } from '../../../scripts/lib/pharos/plan-credentials.ts';
import type { SecretValues } from '../../../scripts/lib/pharos/plan-credentials.ts';
import { parseInventory } from '../../../scripts/lib/pharos/secret-inventory.ts';
import { generateValue } from '../../../scripts/lib/pharos/generate-value.ts';
import { PharosError } from '../../../scripts/lib/pharos/pharos-error.ts';

const inventory = parseInventory(
  JSON.stringify({ schema: 1, keys: { DB: { owners: ['api', 'worker'] }, TOKEN: { owners: ['api'], length: 20 } } }),
  'secret-keys.json',
);
let n = 0;
const generate = (key: string, length: number) => `${key}-${length}-${++n}`;

describe('planCredentials() decides what the record and each owner gain', () => {
  it('generates every key once and hands shared keys to every owner with the same value', () => {
    const plan = planCredentials({ inventory, record: undefined, owners: new Map(), generate });
    expect(plan.record).toMatchObject({
      secret: 'pharos-generated',
      exists: false,
      generated: ['DB', 'TOKEN'],
      recovered: [],
    });
    const db = plan.record.add['DB'];
    expect(plan.owners).toEqual([
      {
        owner: 'api',
        secret: 'api-credentials',
        exists: false,
        add: { DB: db, TOKEN: plan.record.add['TOKEN'] },
        foreign: [],
      },
      { owner: 'worker', secret: 'worker-credentials', exists: false, add: { DB: db }, foreign: [] },
    ]);
  });

  it('never changes a recorded value and plans nothing when everything agrees', () => {
    const record = { DB: 'd', TOKEN: 't' };
    const plan = planCredentials({
      inventory,
      record,
      owners: new Map<string, SecretValues>([
        ['api', { DB: 'd', TOKEN: 't' }],
        ['worker', { DB: 'd' }],
      ]),
      generate,
    });
    expect(planIsEmpty(plan)).toBe(true);
  });

  it('refuses an owner Secret whose value differs from the record, naming every such key', () => {
    const run = () =>
      planCredentials({
        inventory,
        record: { DB: 'd', TOKEN: 't' },
        owners: new Map<string, SecretValues>([
          ['api', { DB: 'x', TOKEN: 'y' }],
          ['worker', { DB: 'd' }],
        ]),
        generate,
      });
    expect(run).toThrow(PharosError);
    expect(run).toThrow(
      'Refusing to write credentials: "api-credentials/DB", "api-credentials/TOKEN" differ from the record "pharos-generated"',
    );
  });

  it('recovers keys missing from the record from the owners, and refuses owners that disagree', () => {
    const plan = planCredentials({
      inventory,
      record: { TOKEN: 't' },
      owners: new Map<string, SecretValues>([['worker', { DB: 'd' }]]),
      generate,
    });
    expect(plan.record).toMatchObject({ exists: true, add: { DB: 'd' }, recovered: ['DB'], generated: [] });
    expect(plan.owners[0]).toMatchObject({ owner: 'api', add: { DB: 'd', TOKEN: 't' } });
    expect(() =>
      planCredentials({
        inventory,
        record: undefined,
        owners: new Map<string, SecretValues>([
          ['api', { DB: 'a' }],
          ['worker', { DB: 'b' }],
        ]),
        generate,
      }),
    ).toThrow(
      'Cannot recover key "DB" for "pharos-generated": the Secrets hold different values (api-credentials / worker-credentials)',
    );
  });

  it('leaves keys the inventory does not give an owner where they are, and reports them by name', () => {
    const plan = planCredentials({
      inventory,
      record: { DB: 'd', TOKEN: 't' },
      owners: new Map<string, SecretValues>([
        ['api', { DB: 'd', TOKEN: 't', OLD: 'o' }],
        ['worker', { DB: 'd' }],
      ]),
      generate,
    });
    expect(plan.owners[0]).toMatchObject({ add: {}, foreign: ['OLD'] });
  });
});

describe('generateValue()', () => {
  it('makes values of letters and digits of the asked length, different every time', () => {
    const values = new Set(Array.from({ length: 50 }, () => generateValue(32)));
    expect(values.size).toBe(50);
    for (const v of values) expect(v).toMatch(/^[A-Za-z0-9]{32}$/);
  });
});
