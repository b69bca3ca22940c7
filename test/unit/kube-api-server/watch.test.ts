import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Watch } from '@kubernetes/client-node';
import { kubeFromConfig } from '../../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../../scripts/lib/ports/index.ts';
import { startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';

let server: KubeApiServer;
let kube: Kube;
beforeAll(async () => {
  server = await startKubeApiServer();
  kube = kubeFromConfig(server.kubeConfig());
});
afterAll(async () => server.close());

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for watch events');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const cm = (name: string, app: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app } }, data: {} });

describe('watch through the client-node Watch', () => {
  it('streams the current objects, then ADDED, MODIFIED and DELETED for matching objects only', async () => {
    await kube.create('ConfigMap', 'w1', cm('before', 'a'));
    const events: string[] = [];
    const controller = await new Watch(server.kubeConfig()).watch('/api/v1/namespaces/w1/configmaps', { labelSelector: 'app=a' }, (type, obj: { metadata: { name: string } }) => events.push(`${type} ${obj.metadata.name}`), () => {});
    try {
      await kube.create('ConfigMap', 'w1', cm('other', 'b'));
      await kube.create('ConfigMap', 'w1', cm('new', 'a'));
      await kube.mergePatch('ConfigMap', 'w1', 'new', { data: { x: '1' } });
      await kube.delete('ConfigMap', 'w1', 'new');
      await until(() => events.length >= 4);
      expect(events).toEqual(['ADDED before', 'ADDED new', 'MODIFIED new', 'DELETED new']);
    } finally {
      controller.abort();
    }
  });

  it('replays the events after a resourceVersion', async () => {
    const start = await kube.create('ConfigMap', 'w2', cm('one', 'a'));
    await kube.mergePatch('ConfigMap', 'w2', 'one', { data: { v: '2' } });
    const events: string[] = [];
    const controller = await new Watch(server.kubeConfig()).watch('/api/v1/namespaces/w2/configmaps', { resourceVersion: start.metadata.resourceVersion }, (type, obj: { data?: { v?: string } }) => events.push(`${type} ${obj.data?.v ?? '-'}`), () => {});
    try {
      await until(() => events.length >= 1);
      expect(events).toEqual(['MODIFIED 2']);
    } finally {
      controller.abort();
    }
  });
});

describe('watch from a resourceVersion the server no longer keeps', () => {
  it('answers an ERROR event with 410 Expired, as the real server does', async () => {
    const small = await startKubeApiServer({ watchHistory: 2 });
    try {
      const k = kubeFromConfig(small.kubeConfig());
      const first = await k.create('ConfigMap', 'w', cm('a', 'a'));
      for (const v of ['1', '2', '3']) await k.mergePatch('ConfigMap', 'w', 'a', { data: { v } });
      const events: { type: string; code?: number; reason?: string }[] = [];
      let ended = false;
      await new Watch(small.kubeConfig()).watch('/api/v1/namespaces/w/configmaps', { resourceVersion: first.metadata.resourceVersion }, (type, obj: { code?: number; reason?: string }) => events.push({ type, code: obj.code, reason: obj.reason }), () => {
        ended = true;
      });
      await until(() => ended);
      expect(events).toEqual([{ type: 'ERROR', code: 410, reason: 'Expired' }]);
    } finally {
      await small.close();
    }
  });
});
