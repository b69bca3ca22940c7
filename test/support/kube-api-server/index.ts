export { ADMIN_TOKEN, ADMIN_USER, startKubeApiServer } from './kube-api-server.ts';
export type { KubeApiServer, KubeApiServerOptions, RecordedRequest, UserInfo } from './kube-api-server.ts';
export type { KubeObject } from './object-store.ts';
export { RESOURCE_TYPES } from './resources.ts';
export type { ResourceType } from './resources.ts';
