import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazySchema } from '../../../scripts/lib/errors/lazy-schema.ts';
import { hostConfigSchema } from '../../../scripts/lib/host/host-config.ts';

describe('lazySchema', () => {
  it('builds the schema on first use only, and once', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds += 1;
      return z.strictObject({ name: z.string().min(1) });
    });
    expect(builds).toBe(0);
    expect(schema.safeParse({ name: 'a' }).success).toBe(true);
    expect(schema.safeParse({ name: '' }).success).toBe(false);
    expect(Object.keys(schema.shape)).toEqual(['name']);
    expect(builds).toBe(1);
  });

  it('nests in other schemas and reports the nested field path', () => {
    const inner = lazySchema(() => z.object({ port: z.number().int() }));
    const outer = z.object({ server: inner, extra: inner.optional() });
    const parsed = outer.safeParse({ server: { port: 1.5 } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['server', 'port']);
    expect(inner instanceof z.ZodType).toBe(true);
  });

  it('leaves the host configuration accepting and rejecting what it did', () => {
    expect(Object.keys(hostConfigSchema.shape)).toContain('HEPHAESTUS_FETCH_TIMEOUT');
    const ok = hostConfigSchema.safeParse({
      HEPHAESTUS_CHANNEL: 'staging',
      HEPHAESTUS_REPOSITORY: 'https://example.invalid/deploy.git',
      HEPHAESTUS_PROMOTE_KEYS: '/etc/keys.pub',
    });
    expect(ok.success && ok.data.HEPHAESTUS_FETCH_TIMEOUT).toBe(600);
    const bad = hostConfigSchema.safeParse({ HEPHAESTUS_CHANNEL: 'Staging', HEPHAESTUS_REPOSITORY: '-x' });
    expect(bad.error?.issues.map((i) => i.path.join('.'))).toEqual(
      expect.arrayContaining(['HEPHAESTUS_CHANNEL', 'HEPHAESTUS_REPOSITORY']),
    );
  });

  it('leaves the host configuration accepting and rejecting what it did', () => {
    expect(Object.keys(hostConfigSchema.shape)).toContain('HEPHAESTUS_FETCH_TIMEOUT');
    const ok = hostConfigSchema.safeParse({
      HEPHAESTUS_CHANNEL: 'staging',
      HEPHAESTUS_REPOSITORY: 'https://example.invalid/deploy.git',
      HEPHAESTUS_PROMOTE_KEYS: '/etc/keys.pub',
    });
    expect(ok.success && ok.data.HEPHAESTUS_FETCH_TIMEOUT).toBe(600);
    const bad = hostConfigSchema.safeParse({ HEPHAESTUS_CHANNEL: 'Staging', HEPHAESTUS_REPOSITORY: '-x' });
    expect(bad.error?.issues.map((i) => i.path.join('.'))).toEqual(
      expect.arrayContaining(['HEPHAESTUS_CHANNEL', 'HEPHAESTUS_REPOSITORY']),
    );
  });
});
