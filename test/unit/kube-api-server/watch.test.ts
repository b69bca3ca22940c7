import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Watch } from '@kubernetes/client-node';
import { kubeFromConfig } from '../../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../../scripts/lib/ports/index.ts';
import { startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';

let server: KubeApiServer;
let kube: Kube;
beforeAll(async () => {
  server = await startKubeApiServer({ namespaces: ['w1', 'w2', 'w3', 'w4'] });
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

const cm = (name: string, app: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels: { app } },
  data: {},
});

describe('watch through the client-node Watch', () => {
  it('streams the current objects, then ADDED, MODIFIED and DELETED for matching objects only', async () => {
    await kube.create('ConfigMap', 'w1', cm('before', 'a'));
    const events: string[] = [];
    const controller = await new Watch(server.kubeConfig()).watch(
      '/api/v1/namespaces/w1/configmaps',
      { labelSelector: 'app=a' },
      (type, obj: { metadata: { name: string } }) => events.push(`${type} ${obj.metadata.name}`),
      () => {},
    );
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
    const controller = await new Watch(server.kubeConfig()).watch(
      '/api/v1/namespaces/w2/configmaps',
      { resourceVersion: start.metadata.resourceVersion },
      (type, obj: { data?: { v?: string } }) => events.push(`${type} ${obj.data?.v ?? '-'}`),
      () => {},
    );
    try {
      await until(() => events.length >= 1);
      expect(events).toEqual(['MODIFIED 2']);
    } finally {
      controller.abort();
    }
  });
});

describe('watch semantics of the real watch cache', () => {
  it('a label-selector watch sees an object entering the selection as ADDED and leaving it as DELETED', async () => {
    await kube.create('ConfigMap', 'w3', cm('mover', 'b'));
    const events: string[] = [];
    const controller = await new Watch(server.kubeConfig()).watch(
      '/api/v1/namespaces/w3/configmaps',
      { labelSelector: 'app=a' },
      (type, obj: { metadata: { name: string; labels: { app: string } } }) =>
        events.push(`${type} ${obj.metadata.name} app=${obj.metadata.labels.app}`),
      () => {},
    );
    try {
      await kube.mergePatch('ConfigMap', 'w3', 'mover', { metadata: { labels: { app: 'a' } } });
      await kube.mergePatch('ConfigMap', 'w3', 'mover', { data: { x: '1' } });
      await kube.mergePatch('ConfigMap', 'w3', 'mover', { metadata: { labels: { app: 'c' } } });
      await until(() => events.length >= 3);
      expect(events).toEqual(['ADDED mover app=a', 'MODIFIED mover app=a', 'DELETED mover app=c']);
    } finally {
      controller.abort();
    }
  });

  it('sends the response headers before the first event, so a client knows the watch is established', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const response = await fetch(
      `${server.url}/api/v1/namespaces/w4/configmaps?watch=true&resourceVersion=${(await kube.create('ConfigMap', 'w4', cm('x', 'a'))).metadata.resourceVersion}`,
      { signal: controller.signal },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(Date.now() - started).toBeLessThan(2000);
    controller.abort();
  });
});

describe('watch from a resourceVersion the server no longer keeps', () => {
  it('answers an ERROR event with 410 Expired, as the real server does', async () => {
    const small = await startKubeApiServer({ watchHistory: 2, namespaces: ['w'] });
    try {
      const k = kubeFromConfig(small.kubeConfig());
      const first = await k.create('ConfigMap', 'w', cm('a', 'a'));
      for (const v of ['1', '2', '3']) await k.mergePatch('ConfigMap', 'w', 'a', { data: { v } });
      const events: { type: string; code?: number; reason?: string }[] = [];
      let ended = false;
      await new Watch(small.kubeConfig()).watch(
        '/api/v1/namespaces/w/configmaps',
        { resourceVersion: first.metadata.resourceVersion },
        (type, obj: { code?: number; reason?: string }) => events.push({ type, code: obj.code, reason: obj.reason }),
        () => {
          ended = true;
        },
      );
      await until(() => ended);
      expect(events).toEqual([{ type: 'ERROR', code: 410, reason: 'Expired' }]);
    } finally {
      await small.close();
    }
  });
});
