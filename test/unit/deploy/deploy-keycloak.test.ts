import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keycloakAai } from '../../../scripts/lib/deploy/deploy-keycloak.ts';
import { startKeycloakDouble } from '../../support/deploy/keycloak-double.ts';
import type { KeycloakDouble } from '../../support/deploy/keycloak-double.ts';

let kc: KeycloakDouble;
let dir = '';
let creds = '';

beforeAll(async () => {
  kc = await startKeycloakDouble();
  dir = await mkdtemp(join(tmpdir(), 'pharos-kc16-'));
  creds = join(dir, 'aai.json');
  await writeFile(creds, JSON.stringify(kc.admin), { mode: 0o600 });
});
afterAll(async () => {
  await kc.close();
  await rm(dir, { recursive: true, force: true });
});

describe('keycloakAai() through the Keycloak admin API double', () => {
  it('creates a missing client and returns its secret; asked again it updates the redirect URIs and returns the same secret', async () => {
    const aai = keycloakAai(kc.issuer, creds);
    const first = await aai.ensureClient({ name: 'argocd', redirectUris: ['https://a.test/cb'] });
    const again = await aai.ensureClient({ name: 'argocd', redirectUris: ['https://b.test/cb'] });
    expect(first.clientId).toBe('argocd');
    expect(again.clientSecret).toBe(first.clientSecret);
    expect([...kc.clients.values()].map((c) => c.redirectUris)).toEqual([['https://b.test/cb']]);
    expect(kc.requests.filter((r) => r.startsWith('PUT'))).toHaveLength(1);
  });

  it('a wrong service-account secret is an error with the HTTP status, and no client is touched', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ ...kc.admin, clientSecret: 'wrong' }), { mode: 0o600 });
    const before = kc.requests.length;
    await expect(
      keycloakAai(kc.issuer, bad).ensureClient({ name: 'x', redirectUris: ['https://x.test/cb'] }),
    ).rejects.toThrow(/token request: HTTP 401/);
    expect(kc.requests.slice(before)).toEqual(['POST /realms/pharos/protocol/openid-connect/token']);
  });

  it('a credentials file others can read, or one that is not JSON, is refused naming the file', async () => {
    const open = join(dir, 'open.json');
    await writeFile(open, JSON.stringify(kc.admin), { mode: 0o644 });
    await expect(
      keycloakAai(kc.issuer, open).ensureClient({ name: 'x', redirectUris: ['https://x.test/cb'] }),
    ).rejects.toThrow(`Cannot use provider token "${open}": mode 644 lets others read it`);
    const text = join(dir, 'text.json');
    await writeFile(text, 'not-json', { mode: 0o600 });
    await expect(
      keycloakAai(kc.issuer, text).ensureClient({ name: 'x', redirectUris: ['https://x.test/cb'] }),
    ).rejects.toThrow(`Cannot use the AAI credentials "${text}": not JSON`);
  });

  it('refuses an issuer that is not a Keycloak realm', () => {
    expect(() => keycloakAai('https://aai.test/oauth', creds)).toThrow(/expected "https:\/\/<host>\/realms\/<realm>"/);
  });
});
