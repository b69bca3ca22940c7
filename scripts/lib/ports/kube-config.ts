// A kubeconfig file read without @kubernetes/client-node: its static credentials, or why the library must read it.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { KubeError } from './kube-error.ts';
import type { StaticCluster, StaticUser } from './kube-endpoint.ts';

const HINT =
  '(set KUBECONFIG, or kube.kubeconfig and kube.context in the target profile; without a dev box, make demo-devbox shows the loop on simulators)';

const text = z.string().min(1);
// Only the fields read here are checked; the rest (extensions, preferences, exec's own) is the library's to judge.
const clusterSchema = z.looseObject({
  server: text,
  'certificate-authority': text.optional(),
  'certificate-authority-data': text.optional(),
  'insecure-skip-tls-verify': z.boolean().optional(),
  'tls-server-name': text.optional(),
});
const userSchema = z.looseObject({
  token: text.optional(),
  tokenFile: text.optional(),
  'token-file': text.optional(),
  'client-certificate': text.optional(),
  'client-certificate-data': text.optional(),
  'client-key': text.optional(),
  'client-key-data': text.optional(),
  username: text.optional(),
  password: z.string().optional(),
});
const contextSchema = z.looseObject({ cluster: text, user: z.string().optional() });
const entries = <T extends z.ZodType>(key: string, inner: T) =>
  z
    .array(z.looseObject({ name: text, [key]: inner }))
    .nullish()
    .transform((list) => (list ?? []) as { name: string; [k: string]: unknown }[]);
const kubeconfigSchema = z.looseObject({
  clusters: entries('cluster', clusterSchema),
  users: entries('user', userSchema.nullish()),
  contexts: entries('context', contextSchema),
  'current-context': z.string().optional(),
});

type RawCluster = z.infer<typeof clusterSchema>;
type RawUser = z.infer<typeof userSchema>;

/** What a user or cluster entry asks that only client-node does (plugins, refreshed tokens, proxies, impersonation). */
const LIBRARY_USER_FIELDS = ['exec', 'auth-provider', 'as', 'as-uid', 'as-groups', 'as-user-extra'] as const;
const LIBRARY_CLUSTER_FIELDS = ['proxy-url'] as const;

export type KubeconfigPlan =
  | { readonly kind: 'static'; readonly cluster: StaticCluster; readonly user: StaticUser | undefined }
  | { readonly kind: 'library'; readonly because: string };

const SECRET_FIELDS = new Set(['token', 'password', 'client-key-data']);

// The document with secret values blanked, so that an issue shows where a token is wrong, never the token.
function redacted(value: unknown, key = ''): unknown {
  if (SECRET_FIELDS.has(key) && value !== null && value !== undefined) return '(hidden)';
  if (Array.isArray(value)) return value.map((v) => redacted(v));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redacted(v, k)]));
  return value;
}

/** Parses and checks `path`; errors are KubeError `config` (exit 2) naming the file, the field and its value. */
export function readKubeconfig(path: string, context?: string): KubeconfigPlan {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new KubeError('config', `Cannot load kubeconfig "${path}": ${(error as Error).message} ${HINT}`, {
      details: { path },
      cause: error,
    });
  }
  const parsed = kubeconfigSchema.safeParse(raw);
  if (!parsed.success)
    throw new KubeError(
      'config',
      `Cannot load kubeconfig "${path}":\n${describeZodIssues(path, redacted(raw), parsed.error).join('\n')}`,
      { details: { path } },
    );
  const doc = parsed.data;
  const name = context ?? doc['current-context'];
  const ctxIndex = doc.contexts.findIndex((c) => c.name === name);
  const ctx = doc.contexts[ctxIndex]?.['context'] as z.infer<typeof contextSchema> | undefined;
  const clusterIndex = ctx === undefined ? -1 : doc.clusters.findIndex((c) => c.name === ctx.cluster);
  if (ctx === undefined || clusterIndex < 0)
    throw new KubeError(
      'config',
      `Cannot use kubeconfig "${path}": no current cluster${context ? ` for context "${context}"` : ''}`,
      { details: { path, context } },
    );
  const cluster = doc.clusters[clusterIndex]?.['cluster'] as RawCluster & Record<string, unknown>;
  const userIndex = doc.users.findIndex((u) => u.name === ctx.user);
  const user = (doc.users[userIndex]?.['user'] ?? undefined) as (RawUser & Record<string, unknown>) | undefined;

  const userField = LIBRARY_USER_FIELDS.find((f) => user?.[f] !== undefined && user[f] !== null);
  if (userField !== undefined) return { kind: 'library', because: `users[${userIndex}].user.${userField}` };
  const clusterField = LIBRARY_CLUSTER_FIELDS.find((f) => cluster[f] !== undefined && cluster[f] !== null);
  if (clusterField !== undefined)
    return { kind: 'library', because: `clusters[${clusterIndex}].cluster.${clusterField}` };

  // Relative paths are relative to the kubeconfig's folder, as kubectl and client-node read them.
  const base = dirname(path);
  const fail = (field: string, message: string): never => {
    throw new KubeError('config', `Cannot load kubeconfig "${path}": ${field}: ${message}`, {
      details: { path, field },
    });
  };
  const file = (field: string, value: string): Buffer => {
    const full = isAbsolute(value) ? value : join(base, value);
    try {
      return readFileSync(full);
    } catch (error) {
      return fail(
        field,
        `cannot read ${JSON.stringify(full)} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
  };
  // A file and its `-data` twin together are refused, as kubectl refuses them: which one wins is not obvious.
  const material = (at: string, entry: Record<string, unknown>, key: string): Buffer | undefined => {
    const fromFile = entry[key] as string | undefined;
    const data = entry[`${key}-data`] as string | undefined;
    if (fromFile !== undefined && data !== undefined)
      fail(`${at}.${key}`, `set together with ${key}-data; keep one of them`);
    if (fromFile !== undefined) return file(`${at}.${key}`, fromFile);
    return data === undefined ? undefined : Buffer.from(data, 'base64');
  };

  const clusterAt = `clusters[${clusterIndex}].cluster`;
  const ca = material(clusterAt, cluster, 'certificate-authority');
  const staticCluster: StaticCluster = {
    name: ctx.cluster,
    server: cluster.server,
    skipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
    ...(ca === undefined ? {} : { ca }),
    ...(cluster['tls-server-name'] === undefined ? {} : { tlsServerName: cluster['tls-server-name'] }),
  };
  if (user === undefined) return { kind: 'static', cluster: staticCluster, user: undefined };
  const userAt = `users[${userIndex}].user`;
  const tokenFileKey = user.tokenFile !== undefined ? 'tokenFile' : 'token-file';
  const tokenFile = user.tokenFile ?? user['token-file'];
  const token =
    user.token ??
    (tokenFile === undefined ? undefined : file(`${userAt}.${tokenFileKey}`, tokenFile).toString('utf8').trim());
  const cert = material(userAt, user, 'client-certificate');
  const key = material(userAt, user, 'client-key');
  const staticUser: StaticUser = {
    name: ctx.user ?? '',
    ...(token === undefined || token === '' ? {} : { token }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
    ...(user.username === undefined ? {} : { username: user.username, password: user.password ?? '' }),
  };
  return { kind: 'static', cluster: staticCluster, user: staticUser };
}
