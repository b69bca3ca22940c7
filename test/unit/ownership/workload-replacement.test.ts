import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeFromConfig } from '../../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import { startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';
import { REPLACED_ANNOTATION, scaleToZero, workloadEnvironment } from '../../../scripts/lib/takeover/index.ts';

let server: KubeApiServer;
let kube: Kube;
const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'apps' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name, image: 'x' }] } },
  },
});

beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: ['apps'] });
  kube = kubeFromConfig(server.kubeConfig());
});
afterAll(() => server.close());

describe('scale-to-zero replacement', () => {
  it('scales to zero and restores exactly the replica count it found', async () => {
    await kube.create('Deployment', 'apps', deployment('web', 3));
    const port = scaleToZero(kube);
    const replaced = await port.replace({ kind: 'Deployment', namespace: 'apps', name: 'web' }, 'lease-1');
    expect(replaced.replicas).toBe(3);
    expect(((await kube.get('Deployment', 'apps', 'web'))?.['spec'] as { replicas: number }).replicas).toBe(0);
    expect(await port.find(['apps'], 'lease-1')).toEqual([replaced]);
    // Replacing again (a resumed start) keeps the original count, not the zero.
    expect((await port.replace({ kind: 'Deployment', namespace: 'apps', name: 'web' }, 'lease-1')).replicas).toBe(3);
    expect(await port.restore(replaced)).toBe(true);
    const after = await kube.get('Deployment', 'apps', 'web');
    expect((after?.['spec'] as { replicas: number }).replicas).toBe(3);
    expect(after?.metadata.annotations?.[REPLACED_ANNOTATION]).toBeUndefined();
    expect(await port.restore(replaced)).toBe(false);
  });

  it("never undoes another lease's replacement", async () => {
    await kube.create('Deployment', 'apps', deployment('api', 2));
    const port = scaleToZero(kube);
    await port.replace({ kind: 'Deployment', namespace: 'apps', name: 'api' }, 'lease-new');
    expect(
      await port.restore({
        workload: { kind: 'Deployment', namespace: 'apps', name: 'api' },
        lease: 'lease-old',
        replicas: 2,
      }),
    ).toBe(false);
    expect(((await kube.get('Deployment', 'apps', 'api'))?.['spec'] as { replicas: number }).replicas).toBe(0);
  });
});

describe('workloadEnvironment()', () => {
  it('resolves values, ConfigMap and Secret keys and envFrom as Kubernetes does (env wins over envFrom)', async () => {
    await kube.create('ConfigMap', 'apps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg' },
      data: { greeting: 'hello', MODE: 'from-envFrom' },
    });
    await kube.create('Secret', 'apps', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'sec' },
      data: { token: Buffer.from('s3cret').toString('base64') },
    });
    const env = await workloadEnvironment(kube, 'apps', {
      name: 'c',
      envFrom: [{ configMapRef: { name: 'cfg' }, prefix: 'CFG_' }, { configMapRef: { name: 'cfg' } }],
      env: [
        { name: 'MODE', value: 'explicit' },
        { name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'greeting' } } },
        { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'sec', key: 'token' } } },
      ],
    });
    expect(env).toEqual({
      CFG_greeting: 'hello',
      CFG_MODE: 'from-envFrom',
      greeting: 'hello',
      MODE: 'explicit',
      GREETING: 'hello',
      TOKEN: 's3cret',
    });
  });
});
