// Applies manifests of any kind the API server serves, through the real client's discovery-based object API.
import { ApiException, KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Manifest } from './manifest.ts';

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
  const header = (m: Manifest) => ({ apiVersion: m.apiVersion, kind: m.kind, metadata: { name: m.metadata.name, namespace: m.metadata.namespace } });
  return {
    async read(ref) {
      try {
        const live = plain(await api.read(header(ref)));
        live.apiVersion ??= ref.apiVersion;
        live.kind ??= ref.kind;
        return live;
      } catch (error) {
        if (apiStatus(error) === 404) return undefined;
        throw error;
      }
    },
    async create(m) {
      await api.create(m as KubernetesObject);
    },
    async replace(m) {
      await api.replace(m as KubernetesObject);
    },
    async mergePatch(ref, patch) {
      await api.patch({ ...header(ref), ...patch } as KubernetesObject, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch);
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
