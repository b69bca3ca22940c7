#!/usr/bin/env node
// Writes, signs, commits and pushes channels/<env>.json on deploy-state (spec: pull-deployment.md, "The channel").
import './lib/cli/require-node.ts';
import './lib/cli/compile-cache.ts';
import type { CiHistory } from './lib/promotion/ci-history.ts';
import type { PromotionRequest } from './lib/promotion/plan-promotion.ts';
import type { ProvenanceSettings } from './lib/promotion/provenance-check.ts';
import type { VersionCheckResult } from './lib/promotion/version-check.ts';
import type { PromotionOutcome } from './lib/promotion/run-promotion.ts';
import { exitOnSavedHelp } from './lib/cli/saved-help.ts';

// --help prints the text cmd-ts rendered when it was saved: it loads no cmd-ts.
const refreshing = process.argv[2] === 'refresh';
await exitOnSavedHelp(
  new URL('./help/promote.json', import.meta.url),
  refreshing ? 'refresh' : '',
  process.argv.slice(refreshing ? 3 : 2),
);
// Loaded after the help check: a help request loads none of them.
const { command, flag, option, optional, string } = await import('cmd-ts');
const { z } = await import('zod');
const { runCli } = await import('./lib/cli/run-cli.ts');
const { stderrLog } = await import('./lib/cli/stderr-log.ts');
const { UsageError } = await import('./lib/errors/toolkit-error.ts');
const { describeZodIssues } = await import('./lib/errors/zod-issues.ts');
const { COMMIT_SHA, ENVIRONMENT, RELEASE_TAG, imagesSchema } = await import('./lib/channel/channel-schema.ts');
const { clockFromEnv } = await import('./lib/host/env-clock.ts');
const { readFileBounded } = await import('./lib/signing/read-bounded.ts');
const { fileCiHistory } = await import('./lib/promotion/file-ci-history.ts');
const { gitHubCiHistory } = await import('./lib/promotion/github-ci-history.ts');
const { parseDuration } = await import('./lib/promotion/parse-duration.ts');
const { chooseSigner } = await import('./lib/promotion/promote-signer.ts');
const { defaultLockPath, withPromotionLock } = await import('./lib/promotion/promotion-lock.ts');
const { promotionTrust } = await import('./lib/promotion/promotion-trust.ts');
const { provenanceCheck } = await import('./lib/promotion/provenance-check.ts');
const { deploymentRecorderFromEnv } = await import('./lib/promotion/record-deployment.ts');
const { runPromotion } = await import('./lib/promotion/run-promotion.ts');
const { PromotionError } = await import('./lib/promotion/promotion-error.ts');
const { waitForVersion } = await import('./lib/promotion/version-check.ts');

const log = stderrLog('promote');

async function readImages(file: string): Promise<Record<string, string>> {
  let json: unknown;
  try {
    json = JSON.parse((await readFileBounded(file)).toString('utf8'));
  } catch (cause) {
    throw new UsageError(`Cannot read images file "${file}": ${(cause as Error).message}`, { cause });
  }
  const parsed = imagesSchema.safeParse(json);
  if (!parsed.success)
    throw new UsageError(`Cannot read images file:\n${describeZodIssues(file, json, parsed.error).join('\n')}`);
  return parsed.data;
}

function ciHistory(file: string | undefined, workflow: string): CiHistory {
  if (file !== undefined) {
    let cached: Promise<CiHistory> | undefined;
    const load = () => (cached ??= fileCiHistory(file));
    return {
      successfulMainBuilds: async () => (await load()).successfulMainBuilds(),
      imagesFor: async (c) => (await load()).imagesFor(c),
    };
  }
  const env = z
    .object({
      GITHUB_REPOSITORY: z.string().regex(/^[^/]+\/[^/]+$/),
      GITHUB_TOKEN: z.string().min(1),
      GITHUB_API_URL: z.url().optional(),
    })
    .safeParse(process.env);
  if (!env.success) {
    const fail = async (): Promise<never> => {
      throw new UsageError(
        `Cannot look up CI runs: pass --ci-history FILE or set GITHUB_REPOSITORY and GITHUB_TOKEN\n${describeZodIssues('environment', {}, env.error).join('\n')}`,
      );
    };
    return { successfulMainBuilds: fail, imagesFor: fail };
  }
  return gitHubCiHistory({
    repository: env.data.GITHUB_REPOSITORY,
    token: env.data.GITHUB_TOKEN,
    apiUrl: env.data.GITHUB_API_URL,
    workflow,
  });
}

function print(
  outcome: PromotionOutcome,
  environment: string,
  json: boolean,
  check: VersionCheckResult | undefined,
): void {
  const { plan, channel } = outcome;
  const target =
    channel === undefined
      ? null
      : 'release' in channel.target
        ? { release: channel.target.release }
        : { commit: channel.target.commit };
  const body = {
    action: plan.action,
    reason: plan.action === 'skip' ? plan.reason : null,
    message: plan.message,
    environment,
    version: channel?.version ?? null,
    expires: channel?.expires ?? null,
    target,
    deployStateCommit: outcome.deployStateCommit ?? null,
    versionCheck:
      check === undefined ? null : { url: check.url, expected: check.expected, seen: check.seen, ok: check.ok },
  };
  if (json) process.stdout.write(`${JSON.stringify(body)}\n`);
  else
    process.stdout.write(
      plan.action === 'skip'
        ? `skipped (${plan.reason}): ${plan.message}\n`
        : `${plan.message}: ${environment} channel version ${channel?.version} until ${channel?.expires}, deploy-state ${outcome.deployStateCommit}\n`,
    );
}

const common = {
  repo: option({ long: 'repo', type: string, description: 'deploy-state repository (URL or path)' }),
  env: option({ long: 'env', type: string, description: 'environment, e.g. staging' }),
  branch: option({
    long: 'branch',
    type: string,
    defaultValue: () => 'deploy-state',
    defaultValueIsSerializable: true,
    description: 'branch holding the channels',
  }),
  key: option({ long: 'key', type: optional(string), description: 'sign with this P-256 private key (PKCS#8 PEM)' }),
  keyless: flag({ long: 'keyless', description: "sign keyless with the CI's OIDC identity (Fulcio + Rekor)" }),
  fulcioUrl: option({
    long: 'fulcio-url',
    type: optional(string),
    description: 'Fulcio URL for --keyless (default: public good)',
  }),
  rekorUrl: option({
    long: 'rekor-url',
    type: optional(string),
    description: 'Rekor URL for --keyless (default: public good)',
  }),
  expiresIn: option({
    long: 'expires-in',
    type: string,
    defaultValue: () => '7d',
    defaultValueIsSerializable: true,
    description: 'channel lifetime: Nm, Nh or Nd',
  }),
  lockFile: option({
    long: 'lock-file',
    type: optional(string),
    description: 'promotion lock file (default: one per repository and environment in the temp folder)',
  }),
  json: flag({
    long: 'json',
    description: 'print {"action","reason","environment","version","expires","target","deployStateCommit"}',
  }),
};

type Common = {
  repo: string;
  env: string;
  branch: string;
  key: string | undefined;
  keyless: boolean;
  fulcioUrl: string | undefined;
  rekorUrl: string | undefined;
  expiresIn: string;
  lockFile: string | undefined;
  json: boolean;
};

async function execute(
  args: Common,
  request: PromotionRequest,
  ci: CiHistory,
  provenance?: ProvenanceSettings,
  recordDeployment = false,
  versionCheck?: { readonly url: string; readonly timeoutMs: number; readonly intervalMs: number },
): Promise<number> {
  if (!ENVIRONMENT.test(args.env))
    throw new UsageError(`Cannot promote: --env "${args.env}" is not a lower-case environment name`);
  if (args.repo.startsWith('-')) throw new UsageError(`Cannot promote: --repo "${args.repo}" must not start with "-"`);
  const expiresInMs = parseDuration(args.expiresIn);
  const sign = await chooseSigner({
    key: args.key,
    keyless: args.keyless,
    fulcioURL: args.fulcioUrl,
    rekorURL: args.rekorUrl,
  });
  const trust = await promotionTrust({ key: args.key, keyless: args.keyless });
  const verifyProvenance = provenance === undefined ? undefined : await provenanceCheck(provenance);
  const record = recordDeployment ? deploymentRecorderFromEnv() : undefined;
  const outcome = await withPromotionLock(args.lockFile ?? defaultLockPath(args.repo, args.env), () =>
    runPromotion({
      repository: args.repo,
      branch: args.branch,
      environment: args.env,
      request,
      sign,
      trust,
      expiresInMs,
      clock: clockFromEnv(),
      ci,
      log,
      verifyProvenance,
    }),
  );
  // The public webapp's version, once per written promotion (a skip or a refresh promotes nothing to wait for).
  let checked: VersionCheckResult | undefined;
  const promoted = outcome.channel?.target;
  const check =
    versionCheck === undefined || outcome.plan.action === 'skip' || outcome.plan.refresh || promoted === undefined
      ? undefined
      : async () =>
          (checked ??= await waitForVersion({
            ...versionCheck,
            expected: 'release' in promoted ? promoted.release : promoted.commit,
          }));
  if (record !== undefined) log('deployment', { id: (await record(request, outcome, args.env, check)) ?? null });
  else if (check !== undefined) await check();
  if (checked !== undefined) log('version-check', { ok: checked.ok, seen: checked.seen, message: checked.message });
  print(outcome, args.env, args.json, checked);
  if (checked !== undefined && !checked.ok)
    throw new PromotionError('version-check', `Cannot confirm the promotion: ${checked.message}`, {
      details: { url: checked.url, expected: checked.expected, seen: checked.seen },
    });
  return 0;
}

const EXIT =
  'Exit status: 0 promoted or left alone by the rules, 1 failure (lock held, push conflict, unreadable channel, git or CI lookup), 2 usage error (including a rollback without --allow-rollback).';

const promote = command({
  name: 'promote',
  description: `Promote a release or a commit to an environment's signed channel on deploy-state.\n--auto applies the automatic-promotion rules (after CI succeeded on main).\n${EXIT}`,
  args: {
    ...common,
    release: option({ long: 'release', type: optional(string), description: 'release tag vX.Y.Z' }),
    commit: option({ long: 'commit', type: optional(string), description: 'commit SHA (40 hex) of main' }),
    imagesFile: option({
      long: 'images-file',
      type: optional(string),
      description: 'JSON {"HEPHAESTUS_IMAGE_*": "repo@sha256:..."} for --commit',
    }),
    auto: flag({
      long: 'auto',
      description: 'automatic promotion of --commit (holds the lock; leaves frozen, promoted or older builds alone)',
    }),
    allowRollback: flag({ long: 'allow-rollback', description: 'let hosts move back to an older target' }),
    freeze: flag({ long: 'freeze', description: 'freeze the channel against automatic promotion' }),
    refreshDatabaseImage: flag({
      long: 'refresh-database-image',
      description: 'restart the database image even if the target runs (commit form)',
    }),
    ciHistory: option({
      long: 'ci-history',
      type: optional(string),
      description: 'CI history JSON file instead of the GitHub API',
    }),
    ciWorkflow: option({
      long: 'ci-workflow',
      type: string,
      defaultValue: () => 'ci.yml',
      defaultValueIsSerializable: true,
      description: 'workflow file whose successful runs on main count',
    }),
    verifyProvenance: flag({
      long: 'verify-provenance',
      description:
        "before signing a commit, verify each image's provenance attestation by --ci-workflow of GITHUB_REPOSITORY at that commit",
    }),
    attestationsDir: option({
      long: 'attestations-dir',
      type: optional(string),
      description: 'attestations as files <dir>/sha256-<hex>/*.json instead of the GitHub API',
    }),
    trustedRoot: option({
      long: 'trusted-root',
      type: optional(string),
      description: "trusted_root.json for attestations (default: Sigstore public good's)",
    }),
    recordDeployment: flag({
      long: 'record-deployment',
      description: 'record a GitHub deployment and status of the promoted target (GitHub Actions, deployments: write)',
    }),
    checkVersion: option({
      long: 'check-version',
      type: optional(string),
      description:
        'after a written promotion, wait until this public webapp URL reports the promoted version ({"version": …} or text); exit 1 if it does not',
    }),
    checkTimeout: option({
      long: 'check-timeout',
      type: string,
      defaultValue: () => '15m',
      defaultValueIsSerializable: true,
      description: 'how long --check-version waits (30s, 15m, 1h)',
    }),
    checkInterval: option({
      long: 'check-interval',
      type: string,
      defaultValue: () => '10s',
      defaultValueIsSerializable: true,
      description: 'between two looks of --check-version',
    }),
  },
  handler: async (args) => {
    if ((args.release === undefined) === (args.commit === undefined))
      throw new UsageError('Cannot promote: pass exactly one of --release vX.Y.Z and --commit SHA');
    if (args.release !== undefined && !RELEASE_TAG.test(args.release))
      throw new UsageError(`Cannot promote: --release "${args.release}" is not vX.Y.Z`);
    if (args.commit !== undefined && !COMMIT_SHA.test(args.commit))
      throw new UsageError(`Cannot promote: --commit "${args.commit}" is not 40 lower-case hex digits`);
    const images = args.imagesFile === undefined ? undefined : await readImages(args.imagesFile);
    const ci = ciHistory(args.ciHistory, args.ciWorkflow);
    let request: PromotionRequest;
    if (args.auto) {
      if (args.commit === undefined) throw new UsageError('Cannot promote automatically: --auto needs --commit');
      if (args.freeze || args.allowRollback || args.refreshDatabaseImage)
        throw new UsageError(
          'Cannot promote automatically with --freeze, --allow-rollback or --refresh-database-image: those are manual decisions',
        );
      request = { mode: 'auto', commit: args.commit, images };
    } else {
      const flags = {
        allowRollback: args.allowRollback,
        freeze: args.freeze,
        refreshDatabaseImage: args.refreshDatabaseImage,
      };
      if (args.release !== undefined) {
        if (args.refreshDatabaseImage)
          throw new UsageError('Cannot promote: --refresh-database-image applies to --commit promotions');
        request = { mode: 'manual', target: { release: args.release }, flags };
      } else {
        if (images === undefined)
          throw new UsageError('Cannot promote --commit: pass --images-file with the image pins');
        request = { mode: 'manual', target: { commit: args.commit ?? '', images }, flags };
      }
    }
    const provenance = args.verifyProvenance
      ? { workflow: args.ciWorkflow, attestationsDir: args.attestationsDir, trustedRoot: args.trustedRoot }
      : undefined;
    if (args.checkVersion !== undefined && !/^https?:\/\/[^\s]+$/.test(args.checkVersion))
      throw new UsageError(`Cannot promote: --check-version "${args.checkVersion}" is not an http(s) URL`);
    const versionCheck =
      args.checkVersion === undefined
        ? undefined
        : {
            url: args.checkVersion,
            timeoutMs: parseDuration(args.checkTimeout),
            intervalMs: parseDuration(args.checkInterval),
          };
    return execute(args, request, ci, provenance, args.recordDeployment, versionCheck);
  },
});

const refresh = command({
  name: 'promote refresh',
  description: `Re-sign the unchanged channel of an environment with the next version and a new expiry (run daily so a healthy channel never goes stale; hosts restart nothing).\n${EXIT}`,
  args: common,
  handler: async (args) =>
    execute(args, { mode: 'refresh' }, { successfulMainBuilds: async () => [], imagesFor: async () => ({}) }),
});

const argv = process.argv.slice(2);
if (argv[0] === 'refresh') await runCli('promote', refresh, argv.slice(1));
else await runCli('promote', promote, argv);
