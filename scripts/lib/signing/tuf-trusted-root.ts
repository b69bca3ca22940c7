import type { TrustedRoot } from './trusted-root.ts';
import { checkTrustedRoot, publicGoodTrustedRoot } from './trusted-root.ts';

export interface TufOptions {
  /** The host's TUF cache, e.g. `$HEPHAESTUS_ROOT/cache/tuf`. */
  readonly cachePath: string;
  readonly mirrorURL?: string;
  readonly timeoutMs?: number;
  /** One journal line when the refresh fails and an older root is used. */
  readonly log?: (message: string) => void;
}

/** Sigstore's trusted root refreshed over TUF (online hosts); if TUF cannot answer, the last cached root, then the seed shipped in @sigstore/tuf. */
export async function tufTrustedRoot(options: TufOptions): Promise<TrustedRoot> {
  // @sigstore/tuf pulls in an HTTP client; only keyless hosts without a trusted_root.json load it.
  const { getTrustedRoot } = await import('@sigstore/tuf');
  const base = {
    cachePath: options.cachePath,
    ...(options.mirrorURL === undefined ? {} : { mirrorURL: options.mirrorURL }),
  };
  try {
    return checkTrustedRoot(
      await getTrustedRoot({ ...base, retry: false, timeout: options.timeoutMs ?? 5000 }),
      `${options.cachePath} (TUF)`,
    );
  } catch (error) {
    options.log?.(`TUF refresh failed (${(error as Error).message}); using the cached trusted root`);
  }
  try {
    return checkTrustedRoot(await getTrustedRoot({ ...base, forceCache: true }), `${options.cachePath} (TUF cache)`);
  } catch (error) {
    options.log?.(
      `no cached TUF trusted root (${(error as Error).message}); using the seed shipped with @sigstore/tuf`,
    );
    return publicGoodTrustedRoot();
  }
}
