// Watches of the test API server: what client-node's Watch, informers and `kubectl wait` read.
import type { ServerResponse } from 'node:http';
import type { KubeObject, ObjectStore, WatchEvent } from './object-store.ts';
import type { ResourceType } from './resources.ts';
import { matchesSelector } from './label-selector.ts';
import type { Requirement } from './label-selector.ts';
import { ApiFailureError, failure } from './status.ts';

export interface FieldSelector {
  readonly name?: string;
  readonly namespace?: string;
}

export interface WatchRequest {
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly selector: Requirement[];
  readonly fields: FieldSelector;
  readonly resourceVersion: string | null;
  readonly timeoutSeconds: string | null;
}

/** Streams one JSON event per line, as the real server does, until the client or a timeout ends it. */
export function streamWatch(store: ObjectStore, res: ServerResponse, w: WatchRequest): void {
  const selected = (object: KubeObject) =>
    matchesSelector(w.selector, (object.metadata['labels'] ?? {}) as Record<string, string>) &&
    (w.fields.name === undefined || object.metadata['name'] === w.fields.name) &&
    (w.fields.namespace === undefined || object.metadata['namespace'] === w.fields.namespace);
  // As the watch cache filters: an object entering the selection is ADDED, one leaving it DELETED.
  const shown = (e: WatchEvent): WatchEvent['type'] | undefined => {
    if (e.resource !== w.type || (w.namespace !== undefined && e.namespace !== w.namespace)) return undefined;
    const now = selected(e.object);
    if (e.type !== 'MODIFIED' || e.previous === undefined) return now ? e.type : undefined;
    const before = selected(e.previous);
    if (before && now) return 'MODIFIED';
    if (now) return 'ADDED';
    return before ? 'DELETED' : undefined;
  };
  // Headers go out at once, so a client waiting for events (kubectl wait) knows the watch is established.
  res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  res.flushHeaders();
  const write = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
  const emit = (e: WatchEvent) => {
    const type = shown(e);
    if (type !== undefined) write(type, e.object);
  };
  let since = Number(w.resourceVersion ?? '0');
  if (w.resourceVersion === null || w.resourceVersion === '' || w.resourceVersion === '0') {
    // No resourceVersion: the current objects first, as synthetic ADDED events.
    for (const obj of store.list(w.type, w.namespace, w.selector, w.fields)) write('ADDED', obj);
    since = Number(store.revision);
  }
  const watch = store.watch(since, emit);
  if (watch.replay === undefined) {
    watch.stop();
    write('ERROR', failure(410, `too old resource version: ${since}`, 'Expired').body);
    res.end();
    return;
  }
  for (const e of watch.replay) emit(e);
  const timeout = w.timeoutSeconds === null ? undefined : setTimeout(() => res.end(), Number(w.timeoutSeconds) * 1000);
  res.on('close', () => {
    watch.stop();
    clearTimeout(timeout);
  });
}

// Field selectors the real server supports on every kind: metadata.name and metadata.namespace.
export function parseFieldSelector(text: string): FieldSelector {
  const out: { name?: string; namespace?: string } = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const m = /^(metadata\.name|metadata\.namespace)\s*==?\s*(\S+)$/.exec(part);
    if (!m) throw new ApiFailureError(failure(400, `field label not supported: ${part}`));
    if (m[1] === 'metadata.name') out.name = m[2] as string;
    else out.namespace = m[2] as string;
  }
  return out;
}
