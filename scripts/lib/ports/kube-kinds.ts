// The kinds the toolkit reads and writes, with where each lives in the API.
export const KUBE_KINDS = {
  ConfigMap: { apiVersion: 'v1', group: '', version: 'v1', plural: 'configmaps', api: 'core' },
  Secret: { apiVersion: 'v1', group: '', version: 'v1', plural: 'secrets', api: 'core' },
  Pod: { apiVersion: 'v1', group: '', version: 'v1', plural: 'pods', api: 'core' },
  Service: { apiVersion: 'v1', group: '', version: 'v1', plural: 'services', api: 'core' },
  Job: { apiVersion: 'batch/v1', group: 'batch', version: 'v1', plural: 'jobs', api: 'batch' },
  Deployment: { apiVersion: 'apps/v1', group: 'apps', version: 'v1', plural: 'deployments', api: 'apps' },
  StatefulSet: { apiVersion: 'apps/v1', group: 'apps', version: 'v1', plural: 'statefulsets', api: 'apps' },
  Application: {
    apiVersion: 'argoproj.io/v1alpha1',
    group: 'argoproj.io',
    version: 'v1alpha1',
    plural: 'applications',
    api: 'custom',
  },
  AppProject: {
    apiVersion: 'argoproj.io/v1alpha1',
    group: 'argoproj.io',
    version: 'v1alpha1',
    plural: 'appprojects',
    api: 'custom',
  },
} as const;

export type KubeKind = keyof typeof KUBE_KINDS;

export interface ObjectMeta {
  name: string;
  namespace?: string;
  resourceVersion?: string;
  uid?: string;
  generation?: number;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

/** Any object as JSON (timestamps are strings); callers validate the parts they use with zod. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };
