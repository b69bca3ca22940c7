import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { durationSchema } from './duration.ts';

const dnsName = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be a Kubernetes name (lowercase letters, digits, "-")');
const secretKey = z.string().regex(/^[-._a-zA-Z0-9]+$/, 'must be a Secret key (letters, digits, "-", "_", ".")');
export const LAYERS = ['host', 'k3s', 'bootstrap'] as const;
const ansibleVar = z
  .string()
  .regex(/^[a-z_][a-z0-9_]*$/, 'must be an Ansible variable name (lowercase letters, digits, "_")');

export const aaiClientSchema = z.strictObject({
  /** The OIDC client id in the AAI realm. */
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be a client id (lowercase letters, digits, "-")'),
  /** Where the client's credentials go in the dev box: Secret <namespace>/<secret>, keys issuer, clientID, clientSecret. */
  namespace: dnsName,
  secret: dnsName,
  redirectUris: z.array(z.url({ protocol: /^https?$/ })).min(1),
});

export const providerTokenSchema = z.strictObject({
  /** The provider's name (gitlab, waldur, …), used in logs and the Secret's annotation. */
  provider: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be a provider name (lowercase letters, digits, "-")'),
  /** A file on this workstation holding the token (one line; readable by its owner only). */
  file: z.string().min(1),
  namespace: dnsName,
  secret: dnsName,
  key: secretKey.default('token'),
});

export const deployProfileSchema = z.strictObject({
  /** The Ansible inventory of the dev box (relative to the profile); its hosts are in group `devbox`. */
  inventory: z.string().min(1),
  /** The cluster layers, in order (roles under deploy/ansible/roles). */
  layers: z
    .array(z.enum(LAYERS))
    .min(1)
    .default([...LAYERS]),
  /** Extra variables for every layer (deploy/ansible/roles/*\/defaults). */
  vars: z.record(ansibleVar, z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).default({}),
  /** How long a killed deploy's record keeps the target from others (the cluster layers take longer than a delivery). */
  ttl: durationSchema.default(7_200_000),
  /** Per layer, how long ansible-playbook may run. */
  layerTimeout: durationSchema.default(1_800_000),
  aai: z
    .strictObject({
      /** The realm's issuer URL, `https://<keycloak>/realms/<realm>`. */
      issuer: z
        .url({ protocol: /^https?$/ })
        .regex(/\/realms\/[^/]+\/?$/, 'must be a Keycloak realm issuer, "https://<host>/realms/<realm>"'),
      /** A JSON file {"clientId","clientSecret"} of a service account allowed to manage the realm's clients. */
      credentials: z.string().min(1),
      clients: z.array(aaiClientSchema).default([]),
    })
    .optional(),
  tokens: z.array(providerTokenSchema).default([]),
  /** Where this workstation's Docker pushes the base images to (default: registry.host), e.g. a port-forward's. */
  seed: z
    .strictObject({ push: z.string().regex(/^[a-z0-9.-]+(:[0-9]+)?$/, 'must be a host such as "127.0.0.1:5000"') })
    .partial()
    .default({}),
});

export type DeployProfile = z.infer<typeof deployProfileSchema>;

/** `~/x` is the user's home; other relative paths are relative to the profile's folder. */
export function resolveProfilePath(path: string, base: string): string {
  if (path === '~' || path.startsWith('~/')) return resolve(homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(base, path);
}

export function resolveDeployPaths(deploy: DeployProfile, base: string): DeployProfile {
  return {
    ...deploy,
    inventory: resolveProfilePath(deploy.inventory, base),
    ...(deploy.aai === undefined
      ? {}
      : { aai: { ...deploy.aai, credentials: resolveProfilePath(deploy.aai.credentials, base) } }),
    tokens: deploy.tokens.map((t) => ({ ...t, file: resolveProfilePath(t.file, base) })),
  };
}
