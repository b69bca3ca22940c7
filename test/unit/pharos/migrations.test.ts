import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMigrations, transactionControl } from '../../../scripts/lib/pharos/migrations.ts';
import { PharosError } from '../../../scripts/lib/pharos/pharos-error.ts';

describe('transactionControl() finds a statement that would end the migration\'s transaction early', () => {
  it('finds a COMMIT after an apostrophe in a comment (the comment starts no string)', () => {
    expect(transactionControl("-- we don't need the old table\nCOMMIT;\nSELECT 'x';")).toBe('COMMIT');
    expect(transactionControl("/* it's the last step */\nROLLBACK;\nSELECT 'x';")).toBe('ROLLBACK');
  });

  it('finds a COMMIT between two strings holding "$$" (a string starts no dollar-quoted body)', () => {
    expect(transactionControl("INSERT INTO t VALUES ('$$');\nCOMMIT;\nINSERT INTO t VALUES ('$$');")).toBe('COMMIT');
  });
});
