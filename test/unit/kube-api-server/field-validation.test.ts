// Unknown fields of built-in kinds, sent over plain HTTP (client-node's typed models would drop them before sending):
// the test API server prunes, warns or refuses as the real one does (test/support/kube-api-server/field-validation.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';

let server: KubeApiServer;
beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: ['f'] });
});
afterAll(() => server.close());

const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, colour: 'red' },
  spec: {
    replicas: 1,
    bogus: true,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'c', image: 'i', imagePullPolicy: 'Never', shape: 'round' }] },
    },
  },
});
const path = '/apis/apps/v1/namespaces/f/deployments';
const write = (method: string, url: string, body: unknown, contentType = 'application/json') =>
  fetch(`${server.url}${url}`, { method, headers: { 'content-type': contentType }, body: JSON.stringify(body) });
const UNKNOWN = ['metadata.colour', 'spec.bogus', 'spec.template.spec.containers[0].shape'];

describe('unknown fields of built-in kinds', () => {
  it('without fieldValidation (Warn): dropped from what is stored, one Warning header per field', async () => {
    const r = await write('POST', path, deployment('warn'));
    expect(r.status).toBe(201);
    expect(r.headers.get('warning')).toBe(UNKNOWN.map((u) => `299 - "unknown field \\"${u}\\""`).join(', '));
    const stored = (await r.json()) as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
    expect(stored.metadata['colour']).toBeUndefined();
    expect(stored.spec['bogus']).toBeUndefined();
    expect(JSON.stringify(stored)).not.toContain('round');
    expect(stored.spec['replicas']).toBe(1);
  });

  it('Strict: a create is 400 naming every field, and nothing is stored', async () => {
    const r = await write('POST', `${path}?fieldValidation=Strict`, deployment('strict'));
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toBe(
      `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ${UNKNOWN.map((u) => `unknown field "${u}"`).join(', ')}`,
    );
    expect((await fetch(`${server.url}${path}/strict`)).status).toBe(404);
  });

  it('Ignore: dropped without a warning; a PUT is decoded the same way', async () => {
    const r = await write('POST', `${path}?fieldValidation=Ignore`, deployment('ignore'));
    expect(r.status).toBe(201);
    expect(r.headers.get('warning')).toBeNull();
    const put = await write('PUT', `${path}/ignore?fieldValidation=Strict`, deployment('ignore'));
    expect(put.status).toBe(400);
  });

  it('a merge patch adding an unknown field: warned and dropped, or 422 on `patch` under Strict', async () => {
    const patch = { spec: { extra: 1 } };
    const warned = await write('PATCH', `${path}/warn`, patch, 'application/merge-patch+json');
    expect(warned.status).toBe(200);
    expect(warned.headers.get('warning')).toBe('299 - "unknown field \\"spec.extra\\""');
    const strict = await write('PATCH', `${path}/warn?fieldValidation=Strict`, patch, 'application/merge-patch+json');
    expect(strict.status).toBe(422);
    const body = (await strict.json()) as { message: string; reason: string };
    expect(body.reason).toBe('Invalid');
    expect(body.message).toMatch(
      /^ "" is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "spec\.extra"$/,
    );
  });

  it('an unknown fieldValidation value is refused on the request options (422)', async () => {
    const r = await write('POST', `${path}?fieldValidation=Loose`, deployment('loose'));
    expect(r.status).toBe(422);
    expect(((await r.json()) as { message: string }).message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"',
    );
  });

  it('custom resources keep every field: the server has no CRD schemas to prune by (a loose spot)', async () => {
    const r = await write('POST', '/apis/argoproj.io/v1alpha1/namespaces/f/appprojects', {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AppProject',
      metadata: { name: 'p' },
      spec: { anything: { goes: true } },
    });
    expect(r.status).toBe(201);
    expect(((await r.json()) as { spec: unknown }).spec).toEqual({ anything: { goes: true } });
  });
});
