// The Kube port's shape: what the library may ask of the API server (kube.ts implements it over HTTP).
import type { JsonPatchOperation, KubeKind, KubeObject } from './kube-kinds.ts';

export interface ListOptions {
  readonly labelSelector?: string;
}

export interface DeleteOptions {
  readonly resourceVersion?: string;
  /** What happens to dependents (a Job's Pods): batch/v1 Jobs orphan them when none is named. */
  readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

export interface Kube {
  /** The object, or undefined when it does not exist. */
  get(kind: KubeKind, namespace: string, name: string): Promise<KubeObject | undefined>;
  list(kind: KubeKind, namespace: string, options?: ListOptions): Promise<KubeObject[]>;
  /** Fails with KubeError `already-exists` when the name is taken. */
  create(kind: KubeKind, namespace: string, object: KubeObject): Promise<KubeObject>;
  /** PUT; with `metadata.resourceVersion` set it is a compare-and-swap (ConflictError when stale). */
  replace(kind: KubeKind, namespace: string, object: KubeObject): Promise<KubeObject>;
  replaceStatus(kind: KubeKind, namespace: string, object: KubeObject): Promise<KubeObject>;
  /** RFC 7386; include `metadata.resourceVersion` in the patch to make it a compare-and-swap. */
  mergePatch(kind: KubeKind, namespace: string, name: string, patch: Record<string, unknown>): Promise<KubeObject>;
  mergePatchStatus(
    kind: KubeKind,
    namespace: string,
    name: string,
    patch: Record<string, unknown>,
  ): Promise<KubeObject>;
  /** RFC 6902; a failed `test` operation is a ConflictError like a stale resourceVersion. */
  jsonPatch(
    kind: KubeKind,
    namespace: string,
    name: string,
    operations: readonly JsonPatchOperation[],
  ): Promise<KubeObject>;
  /**
   * True when the API server accepted the deletion (the object may stay a while, Terminating, until its finalizers
   * and grace period are done), false when it was already gone; `resourceVersion` makes it conditional.
   */
  delete(kind: KubeKind, namespace: string, name: string, options?: DeleteOptions): Promise<boolean>;
  podLogs(namespace: string, name: string, options?: { container?: string }): Promise<string>;
  /** Who the API server says this client is (a SelfSubjectReview, Kubernetes >= 1.28). */
  whoAmI(): Promise<UserInfo>;
  /** HTTP requests sent so far (benchmarks report it). */
  requestCount(): number;
}

export interface UserInfo {
  readonly username: string;
  readonly groups: readonly string[];
}
