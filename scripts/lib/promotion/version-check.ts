/** What the public webapp reported for a promotion (the pull-deployment document: "Watching it"). */
export interface VersionCheckResult {
  readonly url: string;
  /** The promoted release tag or commit SHA. */
  readonly expected: string;
  /** The last version the webapp reported, or null when it never answered with one. */
  readonly seen: string | null;
  readonly ok: boolean;
  readonly message: string;
}

export interface VersionCheckOptions {
  readonly url: string;
  readonly expected: string;
  readonly timeoutMs: number;
  /** Between two looks; each look is bounded by what is left of the deadline. */
  readonly intervalMs: number;
}

const MAX_BODY = 64 * 1024;

/** A release is `v1.2.3` or `1.2.3` in the webapp's answer; a commit only its full SHA. */
export function reportedVersionMatches(seen: string, expected: string): boolean {
  if (/^v\d+\.\d+\.\d+$/.test(expected)) return seen === expected || seen === expected.slice(1);
  return seen === expected;
}

/** The version in a webapp's answer: `{"version": …}` (or `{"commit": …}`), else the first line of plain text. */
export function reportedVersion(body: string): string | null {
  const text = body.trim();
  if (text.startsWith('{')) {
    try {
      const json = JSON.parse(text) as Record<string, unknown>;
      for (const key of ['version', 'commit']) if (typeof json[key] === 'string') return json[key] as string;
    } catch {
      return null;
    }
    return null;
  }
  const line = text.split('\n')[0]?.trim() ?? '';
  return line === '' || line.length > 200 ? null : line;
}

async function look(url: string, signal: AbortSignal): Promise<string | null> {
  try {
    const response = await fetch(url, { signal, headers: { accept: 'application/json, text/plain' } });
    if (!response.ok) return null;
    const body = Buffer.from(await response.arrayBuffer())
      .subarray(0, MAX_BODY)
      .toString('utf8');
    return reportedVersion(body);
  } catch {
    return null;
  }
}

/**
 * Polls the public webapp until it reports the promoted version or the deadline passes. This checks the frontend's
 * version only: it says nothing about server, worker, database or integration readiness (host metrics do).
 */
export async function waitForVersion(options: VersionCheckOptions): Promise<VersionCheckResult> {
  const { url, expected, timeoutMs, intervalMs } = options;
  const deadline = Date.now() + timeoutMs;
  let seen: string | null = null;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const reported = await look(url, AbortSignal.timeout(left));
    if (reported !== null) seen = reported;
    if (reported !== null && reportedVersionMatches(reported, expected))
      return { url, expected, seen, ok: true, message: `the webapp reports ${reported}` };
    const wait = Math.min(intervalMs, deadline - Date.now());
    if (wait <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  const last = seen === null ? 'it reported no version' : `it last reported ${JSON.stringify(seen)}`;
  return {
    url,
    expected,
    seen,
    ok: false,
    message: `the webapp at ${url} did not report ${expected} within ${timeoutMs / 1000} s; ${last}`,
  };
}
