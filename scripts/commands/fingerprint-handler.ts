// What `fingerprint.ts` does once its arguments are read (by cmd-ts, or by plainArgv for the calls made most).
import { resolve } from 'node:path';
import type { PlainArgv, PlainArgvSpec } from '../lib/cli/plain-argv.ts';

/** The arguments of fingerprint.ts, as cmd-ts reads them (fingerprint-command.ts). */
export interface FingerprintArgs {
  readonly repo: string;
  readonly rev: string | undefined;
  readonly image: readonly string[];
  readonly explain: string | undefined;
  readonly since: string | undefined;
  readonly json: boolean;
}

/** The calls read without cmd-ts: every option but the repeatable --image, and --json. */
export const FINGERPRINT_PLAIN: PlainArgvSpec = { options: ['repo', 'rev', 'explain', 'since'], flags: ['json'] };

/** What cmd-ts would read from a vector plainArgv read with FINGERPRINT_PLAIN (its defaults included). */
export const plainFingerprintArgs = ({ options, flags }: PlainArgv): FingerprintArgs => ({
  repo: options['repo'] ?? '.',
  rev: options['rev'],
  image: [],
  explain: options['explain'],
  since: options['since'],
  json: flags.has('json'),
});

const short = async (encoding: string) =>
  (await import('../lib/fingerprint/encoding.ts')).sha256Hex(encoding).slice(0, 12);

/** The encoding `--since` compares with: the last `--explain` run, or the image at a commit (say a receipt's). */
async function baseline(repo: string, image: string, since: string): Promise<{ encoding: string; label: string }> {
  const { UsageError } = await import('../lib/errors/toolkit-error.ts');
  const { fingerprintImages } = await import('../lib/fingerprint/fingerprint-images.ts');
  const { loadCatalogue, openSource } = await import('../lib/fingerprint/open-source.ts');
  if (since === 'last') {
    const encoding = await (await import('../lib/fingerprint/last-explained.ts')).readLastExplained(repo, image);
    if (encoding === undefined)
      throw new UsageError(
        `Cannot explain "${image}" since the last run: no earlier --explain of it in "${repo}"; run --explain once, or pass --since REV`,
      );
    return { encoding, label: 'the last --explain' };
  }
  const source = await openSource(repo, since);
  const [result] = await fingerprintImages(source, await loadCatalogue(source), { images: [image], encodings: true });
  return { encoding: result?.encoding ?? '', label: `${since} (${source.id.slice(0, 12)})` };
}

/** Prints the fingerprints (or one image's encoding, or what changed in it); the exit status. */
export async function fingerprintHandler({ repo, rev, image, explain, since, json }: FingerprintArgs): Promise<number> {
  const { UsageError } = await import('../lib/errors/toolkit-error.ts');
  // The modules this run needs, not the library's index: a warm run loads neither hashing nor git-tree code.
  const { fingerprintImages, selectImages } = await import('../lib/fingerprint/fingerprint-images.ts');
  const { loadCatalogue, openSource } = await import('../lib/fingerprint/open-source.ts');
  const { fingerprintReport } = await import('../lib/fingerprint/fingerprint-report.ts');
  const { hashProgress } = await import('../lib/cli/progress.ts');
  if (since !== undefined && explain === undefined)
    throw new UsageError('--since needs --explain NAME: it explains one image');
  const source = await openSource(resolve(repo), rev);
  const catalogue = await loadCatalogue(source);
  const names = explain !== undefined ? [explain] : image;
  selectImages(catalogue, names); // unknown names fail before any hashing
  const results = await fingerprintImages(source, catalogue, {
    images: names,
    progress: hashProgress('hashing'),
    encodings: explain !== undefined,
  });
  if (explain !== undefined && since !== undefined) {
    const now = results[0]?.encoding ?? '';
    const before = await baseline(resolve(repo), explain, since);
    const { explainChange } = await import('../lib/fingerprint/explain-change.ts');
    const changes = explainChange(before.encoding, now);
    const head =
      changes.length === 0
        ? `${explain}: unchanged since ${before.label}`
        : `${explain}: ${await short(before.encoding)} -> ${await short(now)} since ${before.label}`;
    process.stdout.write(`${[head, ...changes.map((c) => `  ${c}`)].join('\n')}\n`);
    await (await import('../lib/fingerprint/last-explained.ts')).saveLastExplained(resolve(repo), explain, now);
    return 0;
  }
  if (explain !== undefined) {
    process.stdout.write(results[0]?.encoding ?? '');
    await (await import('../lib/fingerprint/last-explained.ts')).saveLastExplained(
      resolve(repo),
      explain,
      results[0]?.encoding ?? '',
    );
    if (json) process.stderr.write('fingerprint: --explain prints the encoding text; --json is ignored\n');
    return 0;
  }
  if (json) {
    process.stdout.write(fingerprintReport(source.id, results));
    return 0;
  }
  process.stdout.write(`source: ${source.id}\n`);
  const { formatTable } = await import('../lib/cli/table.ts');
  process.stdout.write(
    formatTable(
      ['IMAGE', 'FILES', 'FINGERPRINT'],
      results.map((r) => [r.name, String(r.files), r.fingerprint]),
    ),
  );
  return 0;
}
