import { createHash } from 'node:crypto';
import { z } from 'zod';
import { describeZodIssues } from '../../errors/zod-issues.ts';
import { ChartError } from './chart-error.ts';
import { MAX_ARTIFACT_BYTES } from '../../signing/read-bounded.ts';
import { authorizedFetch } from './registry-auth.ts';
import type { RegistryCredentials } from './registry-auth.ts';

// A chart is verified over its exact bytes like every signed file: at most 1 MiB.
const MAX_CHART_BYTES = MAX_ARTIFACT_BYTES;

// Helm's media types for a chart stored as an OCI artifact (helm pkg/registry/constants.go).
export const HELM_CONFIG_MEDIA_TYPE = 'application/vnd.cncf.helm.config.v1+json';
export const HELM_CHART_MEDIA_TYPE = 'application/vnd.cncf.helm.chart.content.v1.tar+gzip';
const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

/** `oci://<host>/<repository>@sha256:<64 hex>` split into its parts. */
export interface OciReference {
  readonly host: string;
  readonly repository: string;
  readonly digest: string;
}

const REFERENCE = /^oci:\/\/([a-z0-9.-]+(?::\d+)?)\/([a-z0-9][a-z0-9._\/-]*)@(sha256:[0-9a-f]{64})$/;

export function parseOciReference(reference: string): OciReference {
  const match = REFERENCE.exec(reference);
  if (match === null)
    throw new ChartError(
      'pull-failed',
      `Cannot pull chart "${reference}": expected oci://<host>/<repository>@sha256:<64 hex>`,
      { exitCode: 2, details: { reference } },
    );
  return { host: match[1] ?? '', repository: match[2] ?? '', digest: match[3] ?? '' };
}

/** A loopback registry speaks plain HTTP (the tests' and the demo's); every other one HTTPS. */
function base(host: string): string {
  return /^(127\.0\.0\.1|localhost)(:\d+)?$/.test(host) ? `http://${host}` : `https://${host}`;
}

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

const descriptor = z.object({
  mediaType: z.string(),
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
});
const manifestSchema = z.object({
  schemaVersion: z.literal(2),
  config: descriptor,
  layers: z.array(descriptor).min(1),
});

async function readLimited(response: Response, limit: number, what: string): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > limit)
    throw new ChartError('pull-failed', `Cannot pull ${what}: ${declared} bytes, over the ${limit}-byte limit`);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += (chunk as Uint8Array).length;
    if (total > limit) throw new ChartError('pull-failed', `Cannot pull ${what}: over the ${limit}-byte limit`);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks);
}

export interface PulledChart {
  readonly digest: string;
  readonly archive: Buffer;
}

/**
 * Pulls a chart by digest over the registry HTTP API: the manifest's bytes must hash to the digest asked for, and the
 * chart layer's bytes to the digest the manifest names; both reads are bounded in size and time.
 */
export async function pullChartByDigest(reference: string, timeoutMs: number): Promise<PulledChart> {
  const ref = parseOciReference(reference);
  const signal = AbortSignal.timeout(timeoutMs);
  const url = `${base(ref.host)}/v2/${ref.repository}`;
  const get = async (path: string, accept: string): Promise<Response> => {
    const response = await fetch(`${url}${path}`, { headers: { accept }, signal }).catch((cause: Error) => {
      throw new ChartError('pull-failed', `Cannot pull chart "${reference}": ${cause.message}`, { cause });
    });
    if (!response.ok)
      throw new ChartError('pull-failed', `Cannot pull chart "${reference}": ${path} answered ${response.status}`);
    return response;
  };
  const manifestBytes = await readLimited(
    await get(`/manifests/${ref.digest}`, OCI_MANIFEST),
    1024 * 1024,
    `the manifest of "${reference}"`,
  );
  if (sha256(manifestBytes) !== ref.digest)
    throw new ChartError(
      'chart-mismatch',
      `Cannot pull chart "${reference}": the registry served a manifest whose digest is ${sha256(manifestBytes)}`,
    );
  let json: unknown;
  try {
    json = JSON.parse(manifestBytes.toString('utf8'));
  } catch (cause) {
    throw new ChartError('pull-failed', `Cannot read the manifest of "${reference}": not JSON`, { cause });
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success)
    throw new ChartError(
      'pull-failed',
      `Cannot read the manifest of "${reference}":\n${describeZodIssues('manifest', json, parsed.error).join('\n')}`,
    );
  if (parsed.data.config.mediaType !== HELM_CONFIG_MEDIA_TYPE)
    throw new ChartError(
      'pull-failed',
      `Cannot pull "${reference}": config media type "${parsed.data.config.mediaType}" is not a Helm chart's`,
    );
  const layer = parsed.data.layers.find((l) => l.mediaType === HELM_CHART_MEDIA_TYPE);
  if (layer === undefined)
    throw new ChartError('pull-failed', `Cannot pull "${reference}": no layer of media type ${HELM_CHART_MEDIA_TYPE}`);
  if (layer.size > MAX_CHART_BYTES)
    throw new ChartError(
      'pull-failed',
      `Cannot pull "${reference}": chart layer is ${layer.size} bytes, over the ${MAX_CHART_BYTES}-byte limit`,
    );
  const archive = await readLimited(
    await get(`/blobs/${layer.digest}`, '*/*'),
    MAX_CHART_BYTES,
    `the chart layer of "${reference}"`,
  );
  if (sha256(archive) !== layer.digest)
    throw new ChartError(
      'chart-mismatch',
      `Cannot pull chart "${reference}": the chart layer's digest is ${sha256(archive)}, the manifest names ${layer.digest}`,
    );
  return { digest: ref.digest, archive };
}

type Send = (url: string | URL, init?: RequestInit) => Promise<Response>;

async function pushBlob(send: Send, url: string, bytes: Uint8Array): Promise<string> {
  const digest = sha256(bytes);
  const start = await send(`${url}/blobs/uploads/`, { method: 'POST' });
  const location = start.headers.get('location');
  if (start.status !== 202 || location === null)
    throw new ChartError('pull-failed', `Cannot push a blob to ${url}: upload start answered ${start.status}`);
  const target = new URL(location, url);
  target.searchParams.set('digest', digest);
  const put = await send(target, {
    method: 'PUT',
    body: bytes,
    headers: { 'content-type': 'application/octet-stream' },
  });
  if (put.status !== 201) throw new ChartError('pull-failed', `Cannot push blob ${digest} to ${url}: ${put.status}`);
  return digest;
}

/**
 * Pushes a packaged chart as Helm does (config + one chart layer, OCI image manifest); returns `oci://…@sha256:…`. With
 * credentials, a registry that asks (ghcr.io: a Bearer token for the push scope) is answered (registry-auth.ts).
 */
export async function pushChart(
  host: string,
  repository: string,
  tag: string,
  archive: Uint8Array,
  metadata: Readonly<Record<string, unknown>>,
  credentials?: RegistryCredentials,
): Promise<string> {
  const url = `${base(host)}/v2/${repository}`;
  const send = authorizedFetch(repository, credentials);
  const config = Buffer.from(JSON.stringify(metadata));
  const configDigest = await pushBlob(send, url, config);
  const layerDigest = await pushBlob(send, url, archive);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: { mediaType: HELM_CONFIG_MEDIA_TYPE, digest: configDigest, size: config.length },
      layers: [{ mediaType: HELM_CHART_MEDIA_TYPE, digest: layerDigest, size: archive.length }],
      annotations: {
        'org.opencontainers.image.title': String(metadata.name),
        'org.opencontainers.image.version': String(metadata.version),
      },
    }),
  );
  const put = await send(`${url}/manifests/${tag}`, {
    method: 'PUT',
    body: manifest,
    headers: { 'content-type': OCI_MANIFEST },
  });
  if (put.status !== 201)
    throw new ChartError(
      'pull-failed',
      `Cannot push chart manifest to ${url}:${tag}: ${put.status} ${await put.text()}`,
    );
  return `oci://${host}/${repository}@${sha256(manifest)}`;
}
