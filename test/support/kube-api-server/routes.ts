// URL → resource: /api/v1/namespaces/{ns}/{plural}/{name}/{sub} and /apis/{group}/{version}/…
import { findResourceType } from './resources.ts';
import type { ResourceType } from './resources.ts';

export type Route =
  | { readonly kind: 'discovery'; readonly path: string }
  | {
      readonly kind: 'resource';
      readonly type: ResourceType;
      readonly namespace: string | undefined;
      readonly name: string | undefined;
      readonly subresource: string | undefined;
    }
  | { readonly kind: 'unknown' };

export function route(pathname: string): Route {
  const parts = pathname
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api') {
    if (parts.length <= 2) return { kind: 'discovery', path: pathname };
    group = '';
    version = parts[1] as string;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis') {
    if (parts.length <= 3) return { kind: 'discovery', path: pathname };
    group = parts[1] as string;
    version = parts[2] as string;
    rest = parts.slice(3);
  } else if (parts[0] === 'version' && parts.length === 1) {
    return { kind: 'discovery', path: pathname };
  } else return { kind: 'unknown' };
  let namespace: string | undefined;
  // /api/v1/namespaces/x/status is the Namespace's own subresource, /api/v1/namespaces/x/pods a namespaced list.
  if (
    rest[0] === 'namespaces' &&
    rest.length >= 3 &&
    findResourceType(group, version, rest[2] as string)?.clusterScoped !== true &&
    findResourceType(group, version, rest[2] as string) !== undefined
  ) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource, ...extra] = rest;
  if (plural === undefined || extra.length > 0) return { kind: 'unknown' };
  const type = findResourceType(group, version, plural);
  if (!type) return { kind: 'unknown' };
  if (type.clusterScoped !== true && namespace === undefined && name !== undefined) return { kind: 'unknown' };
  return { kind: 'resource', type, namespace, name, subresource };
}
