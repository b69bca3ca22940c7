#!/usr/bin/env node
// Release locks (spec: pull-deployment.md, "The locks"): --produce in the release workflow, verification on a host.
import './lib/cli/require-node.ts';
import './lib/cli/compile-cache.ts';
import { resolve } from 'node:path';
import type { HostConfig } from './lib/host/host-config.ts';
import type { TrustPolicy } from './lib/signing/trust-policy.ts';
import type { ZodType } from 'zod';
import { exitOnSavedHelp } from './lib/cli/saved-help.ts';

// --help prints the text cmd-ts rendered when it was saved: it loads no cmd-ts.
await exitOnSavedHelp(
  new URL('./help/prepare-release-lock.json', import.meta.url),
  process.argv.includes('--produce') ? '--produce' : '',
  process.argv.slice(2),
);
// Loaded after the help check: a help request loads none of them.
const { command, flag, option, optional, positional, string } = await import('cmd-ts');
const { runCli } = await import('./lib/cli/run-cli.ts');
const { repoOption } = await import('./commands/common-options.ts');
const { stderrLog } = await import('./lib/cli/stderr-log.ts');
const { UsageError } = await import('./lib/errors/toolkit-error.ts');
const { describeZodIssues } = await import('./lib/errors/zod-issues.ts');
const { COMMIT_SHA, RELEASE_TAG } = await import('./lib/channel/channel-schema.ts');
const { loadCatalogue, openSource } = await import('./lib/fingerprint/index.ts');
const { chartLockSchema } = await import('./lib/lock/lock-schema.ts');
const { checkReleaseInputs, parseBuilt, prepareReleaseLock } = await import('./lib/lock/prepare-release-lock.ts');
const { writeFileAtomic } = await import('./lib/ports/atomic-write.ts');
const { readFileBounded } = await import('./lib/signing/read-bounded.ts');
const { chooseSigner } = await import('./lib/promotion/promote-signer.ts');
const { hostTrustPolicy } = await import('./lib/host/host-trust.ts');
const { loadHostConfig } = await import('./lib/host/load-host-config.ts');
const { verifiedReleaseLock, writeLockEnv } = await import('./lib/host/release-lock.ts');
const { checkHostRoot } = await import('./lib/host/check-root.ts');
const { fetchReleaseTag, whileNoTick } = await import('./lib/host/release-tag.ts');

const log = stderrLog('prepare-release-lock');

async function readText(file: string, what: string): Promise<string> {
  try {
    return (await readFileBounded(file)).toString('utf8');
  } catch (cause) {
    throw new UsageError(`Cannot read ${what} "${file}": ${(cause as Error).message}`, { cause });
  }
}

async function readJsonFile<T>(file: string, schema: ZodType<T>, what: string): Promise<T> {
  let json: unknown;
  try {
    json = JSON.parse(await readText(file, what));
  } catch (cause) {
    if (cause instanceof UsageError) throw cause;
    throw new UsageError(`Cannot read ${what} "${file}": ${(cause as Error).message}`, { cause });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new UsageError(`Cannot read ${what}:\n${describeZodIssues(file, json, parsed.error).join('\n')}`);
  return parsed.data;
}

const produce = command({
  name: 'prepare-release-lock --produce',
  description:
    "Produce a release lock from the release commit's catalogue and the digests the build pushed; sign it with --key or --keyless.\n" +
    'Exit status: 0 written, 1 failure, 2 usage or input error.',
  args: {
    produce: flag({ long: 'produce', description: 'produce (release workflow) instead of verifying (host)' }),
    release: option({ long: 'release', type: string, description: 'release tag vX.Y.Z' }),
    commit: option({ long: 'commit', type: string, description: "the tag's commit (40 hex)" }),
    repo: repoOption('platform repository folder'),
    built: option({
      long: 'built',
      type: string,
      description: 'JSON {"<catalogue name>": "<registry>/<image>@sha256:<hex>"} from the build',
    }),
    chart: option({
      long: 'chart',
      type: optional(string),
      description: 'JSON {"name","version","reference"} for a joint chart lock',
    }),
    out: option({
      long: 'out',
      type: string,
      description: 'lock file to write (the bundle goes to <out>.sigstore.json)',
    }),
    key: option({ long: 'key', type: optional(string), description: 'sign with this P-256 private key (PKCS#8 PEM)' }),
    keyless: flag({ long: 'keyless', description: "sign keyless with the CI's OIDC identity" }),
    fulcioUrl: option({ long: 'fulcio-url', type: optional(string), description: 'Fulcio URL for --keyless' }),
    rekorUrl: option({ long: 'rekor-url', type: optional(string), description: 'Rekor URL for --keyless' }),
  },
  handler: async (args) => {
    checkReleaseInputs(args.release, args.commit);
    const sign =
      args.key !== undefined || args.keyless
        ? await chooseSigner({
            key: args.key,
            keyless: args.keyless,
            fulcioURL: args.fulcioUrl,
            rekorURL: args.rekorUrl,
          })
        : undefined;
    const catalogue = await loadCatalogue(await openSource(resolve(args.repo), args.commit));
    const built = parseBuilt(await readText(args.built, 'built digests'), args.built);
    const chart =
      args.chart === undefined ? undefined : await readJsonFile(args.chart, chartLockSchema.shape.chart, 'chart');
    const prepared = await prepareReleaseLock({
      release: args.release,
      commit: args.commit,
      catalogue,
      built,
      ...(chart === undefined ? {} : { chart }),
      ...(sign === undefined ? {} : { sign }),
    });
    await writeFileAtomic(args.out, prepared.bytes);
    log('produce', {
      out: args.out,
      images: Object.keys(prepared.lock.images).length,
      kind: 'kind' in prepared.lock ? 'chart' : 'compose',
    });
    if (prepared.bundle !== undefined) {
      await writeFileAtomic(`${args.out}.sigstore.json`, prepared.bundle);
      log('sign', { bundle: `${args.out}.sigstore.json` });
    }
    return 0;
  },
});

const verify = command({
  name: 'prepare-release-lock',
  description:
    "On a host: prepare-release-lock.ts <tag> [<commit>] <out>. Fetch the release lock of <tag> (deploy-state locks/ or HEPHAESTUS_RELEASE_URL), verify it against the release trust, check that its commit is the tag's commit (and <commit>, when given), and write <out> as KEY=value lines (0600, atomically): HEPHAESTUS_RELEASE, HEPHAESTUS_COMMIT (also as HEPHAESTUS_RELEASE_COMMIT) and the image pins.\n" +
    'Exit status: 0 written, 1 verification or fetch failure (nothing written), 2 configuration or usage error, 75 a tick is running (nothing touched).',
  args: {
    tag: positional({ type: string, displayName: 'tag' }),
    second: positional({ type: string, displayName: 'commit or out' }),
    third: positional({ type: optional(string), displayName: 'out' }),
    chart: flag({
      long: 'chart',
      description: 'verify the joint chart lock (default when HEPHAESTUS_STACKS is "chart")',
    }),
  },
  handler: async ({ tag, second, third, chart }) => {
    const [commit, out] = third === undefined ? [undefined, second] : [second, third];
    if (!RELEASE_TAG.test(tag)) throw new UsageError(`Cannot verify lock: tag "${tag}" is not vX.Y.Z`);
    if (commit !== undefined && !COMMIT_SHA.test(commit))
      throw new UsageError(`Cannot verify lock: commit "${commit}" is not 40 lower-case hex digits`);
    const config = await loadHostConfig();
    const kind = chart || config.HEPHAESTUS_STACKS.trim() === 'chart' ? 'chart' : 'compose';
    const policy = await hostTrustPolicy(config, 'release', (message) => log('trust', { message }));
    await checkHostRoot(config.HEPHAESTUS_ROOT);
    return whileNoTick(config, 'Cannot verify lock', () => verifyInto(config, policy, tag, commit, out, kind));
  },
});

async function verifyInto(
  config: HostConfig,
  policy: TrustPolicy,
  tag: string,
  expected: string | undefined,
  out: string,
  kind: 'compose' | 'chart',
): Promise<number> {
  const { checkout, tagCommit: commit } = await fetchReleaseTag(config, tag, expected, 'Cannot verify lock');
  const lock = await verifiedReleaseLock(
    { checkout, releaseUrl: config.HEPHAESTUS_RELEASE_URL, timeoutMs: config.HEPHAESTUS_FETCH_TIMEOUT * 1000 },
    tag,
    commit,
    kind,
    policy,
  );
  await writeLockEnv(out, lock);
  log('verify', { tag, commit, out, images: Object.keys(lock.images).length });
  return 0;
}

const argv = process.argv.slice(2);
await runCli('prepare-release-lock', argv.includes('--produce') ? produce : verify, argv);
