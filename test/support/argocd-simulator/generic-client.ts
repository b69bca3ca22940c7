// Applies manifests of any kind the API server serves, through the real client's discovery-based object API.
import { ApiException, KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Manifest } from './manifest.ts';
// Not re-exported by the package index: the client's own model serializer and type lookup.
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';
import { getSerializationType } from '@kubernetes/client-node/dist/util.js';

export interface GenericClient {
  read(ref: Manifest): Promise<Manifest | undefined>;
  create(m: Manifest): Promise<void>;
  /** PUT carrying `metadata.resourceVersion`: a 409 means someone changed it meanwhile. */
  replace(m: Manifest): Promise<void>;
  mergePatch(ref: Manifest, patch: Record<string, unknown>): Promise<void>;
  /** DELETE with a propagation policy; `wait` polls until the object is gone (finalizers and grace periods done). */
  delete(ref: Manifest, options?: { propagationPolicy?: 'Background' | 'Foreground'; wait?: boolean }): Promise<void>;
}

const plain = (value: unknown): Manifest => JSON.parse(JSON.stringify(value)) as Manifest;

/**
 * KubernetesObjectApi serializes a built-in kind through its typed model, which names some fields differently
 * (NetworkPolicy's `from` is `_from`): a plain object would lose them. Read it into the model first, as kubectl's
 * decoding would.
 */
function typed(m: Manifest): KubernetesObject {
  const type = getSerializationType(m.apiVersion, m.kind);
  return (type === 'KubernetesObject' ? m : ObjectSerializer.deserialize(m, type)) as KubernetesObject;
}

export function apiStatus(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

/** The API server's Status message of a failed request (not the client's HTTP dump). */
export function apiMessage(error: unknown): string {
  if (error instanceof ApiException) {
    try {
      const body = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
      if (typeof body?.message === 'string') return body.message;
    } catch {
      // not a Status body: fall through
    }
    return `HTTP ${error.code}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export function genericClient(kc: KubeConfig): GenericClient {
  const api = KubernetesObjectApi.makeApiClient(kc);
  const header = (m: Manifest) => ({
    apiVersion: m.apiVersion,
    kind: m.kind,
    metadata: { name: m.metadata.name, namespace: m.metadata.namespace },
  });
  return {
    async read(ref) {
      try {
        // The client returns its typed model; back to the wire's field names (`from`, not `_from`).
        const live = plain(
          ObjectSerializer.serialize(await api.read(header(ref)), getSerializationType(ref.apiVersion, ref.kind)),
        );
        live.apiVersion ??= ref.apiVersion;
        live.kind ??= ref.kind;
        return live;
      } catch (error) {
        if (apiStatus(error) === 404) return undefined;
        throw error;
      }
    },
    async create(m) {
      await api.create(typed(m));
    },
    async replace(m) {
      await api.replace(typed(m));
    },
    async mergePatch(ref, patch) {
      await api.patch(
        { ...header(ref), ...patch } as KubernetesObject,
        undefined,
        undefined,
        undefined,
        undefined,
        PatchStrategy.MergePatch,
      );
    },
    async delete(ref, options = {}) {
      try {
        await api.delete(header(ref), undefined, undefined, undefined, undefined, options.propagationPolicy);
      } catch (error) {
        if (apiStatus(error) !== 404) throw error;
      }
      // As `kubectl replace --force` does: the new object can only be created once the old one is gone.
      for (let i = 0; options.wait === true && i < 300; i++) {
        if ((await this.read(ref)) === undefined) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      if (options.wait === true) throw new Error(`${ref.kind} "${ref.metadata.name}" was not deleted within 6 s`);
    },
  };
}
