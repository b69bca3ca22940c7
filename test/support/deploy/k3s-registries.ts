// How k3s reads /etc/rancher/k3s/registries.yaml, ported for the tests (facts, not code, from k3s-io/k3s
// pkg/agent/containerd/config.go `getHostConfigs`/`normalizeEndpointAddress` and rancher/wharfie's Registry type):
// - top level `mirrors: {<host>: {endpoint: [..], rewrite: {..}}}` and `configs: {<host>: {auth: {..}, tls: {..}}}`;
//   unknown keys are ignored (a plain YAML unmarshal), a wrong type fails the whole file;
// - an endpoint without "://" gets a scheme: http for localhost or a loopback address on a port other than 443,
//   https for everything else; a path of "", "/" or "/v2" becomes "/v2", any other path overrides it;
// - duplicate endpoint URLs are skipped; the registry's own https://<host>/v2 stays the last-resort default endpoint.
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

const mirrorSchema = z.looseObject({
  endpoint: z.array(z.string()).optional(),
  rewrite: z.record(z.string(), z.string()).optional(),
});
const configSchema = z.looseObject({
  auth: z
    .looseObject({
      username: z.string().optional(),
      password: z.string().optional(),
      auth: z.string().optional(),
      identitytoken: z.string().optional(),
    })
    .optional(),
  tls: z
    .looseObject({
      ca_file: z.string().optional(),
      cert_file: z.string().optional(),
      key_file: z.string().optional(),
      insecure_skip_verify: z.boolean().optional(),
    })
    .optional(),
});
export const registriesSchema = z.looseObject({
  mirrors: z.record(z.string(), mirrorSchema).default({}),
  configs: z.record(z.string(), configSchema).default({}),
});

export interface Endpoint {
  readonly url: string;
  readonly host: string;
  readonly overridePath: boolean;
}

const isLocalhost = (hostname: string) => hostname === 'localhost' || /^127\./.test(hostname) || hostname === '[::1]';

export function normalizeEndpoint(endpoint: string): Endpoint {
  const schemeless = !endpoint.includes('://');
  const url = new URL(schemeless ? `http://${endpoint}` : endpoint);
  let scheme = url.protocol.replace(/:$/, '');
  if (schemeless) scheme = isLocalhost(url.hostname) && url.port !== '' && url.port !== '443' ? 'http' : 'https';
  const host = url.host === 'docker.io' ? 'registry-1.docker.io' : url.host;
  const path = url.pathname === '' || url.pathname === '/' || url.pathname === '/v2' ? '/v2' : url.pathname;
  return { url: `${scheme}://${host}${path}`, host, overridePath: path !== '/v2' || url.pathname === '/v2/' };
}

export interface HostConfig {
  readonly endpoints: readonly Endpoint[];
  readonly defaultEndpoint: Endpoint;
}

/** The hosts.toml k3s would generate per mirrored host: the mirror endpoints in order, then the default one. */
export function hostConfigs(text: string): Record<string, HostConfig> {
  const registry = registriesSchema.parse(parseYaml(text));
  const out: Record<string, HostConfig> = {};
  for (const [host, mirror] of Object.entries(registry.mirrors)) {
    const seen = new Set<string>();
    const endpoints: Endpoint[] = [];
    for (const raw of mirror.endpoint ?? []) {
      const endpoint = normalizeEndpoint(raw);
      if (seen.has(endpoint.url)) continue;
      seen.add(endpoint.url);
      endpoints.push(endpoint);
    }
    out[host] = { endpoints, defaultEndpoint: normalizeEndpoint(host) };
  }
  return out;
}
