import { MAX_ARTIFACT_BYTES, tooLarge } from '../signing/read-bounded.ts';
import { HostError } from './host-error.ts';

/** GETs a URL, refusing a declared or actual body over the limit without buffering it; undefined on 404. */
export async function fetchBounded(
  url: string,
  limit: number = MAX_ARTIFACT_BYTES,
  timeoutMs = 600_000,
): Promise<Buffer | undefined> {
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'follow', signal });
  } catch (cause) {
    throw new HostError(
      'fetch-failed',
      `Cannot fetch "${url}": ${signal.aborted ? `no answer within ${timeoutMs / 1000} s` : (cause as Error).message}`,
      { cause, details: { url } },
    );
  }
  if (response.status === 404) return undefined;
  if (!response.ok || response.body === null)
    throw new HostError('fetch-failed', `Cannot fetch "${url}": HTTP ${response.status}`, {
      details: { url, status: response.status },
    });
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > limit) {
    await response.body.cancel();
    throw tooLarge(url, declared, limit);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body) {
      total += chunk.byteLength;
      if (total > limit) throw tooLarge(url, total, limit);
      chunks.push(chunk);
    }
  } catch (cause) {
    if (!signal.aborted) throw cause;
    throw new HostError('fetch-failed', `Cannot fetch "${url}": the body did not arrive within ${timeoutMs / 1000} s`, {
      cause,
      details: { url },
    });
  }
  return Buffer.concat(chunks, total);
}
