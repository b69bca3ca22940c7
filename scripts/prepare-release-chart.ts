#!/usr/bin/env node
// A release's chart on a host, by hand (docs/chart-host.md): verify the joint lock and the chart, write the package and its pins.
import './lib/cli/require-node.ts';
import './lib/cli/compile-cache.ts';
import { join, resolve } from 'node:path';
import { exitOnSavedHelp } from './lib/cli/saved-help.ts';

// --help prints the text cmd-ts rendered when it was saved: it loads no cmd-ts.
await exitOnSavedHelp(
  new URL('./help/prepare-release-chart.json', import.meta.url),
  process.argv.includes('--produce') ? '--produce' : process.argv.includes('--evidence') ? '--evidence' : '',
  process.argv.slice(2),
);
// Loaded after the help check: a help request loads none of them.
const { command, flag, option, optional, positional, string } = await import('cmd-ts');
const { runCli } = await import('./lib/cli/run-cli.ts');
const { stderrLog } = await import('./lib/cli/stderr-log.ts');
const { UsageError } = await import('./lib/errors/toolkit-error.ts');
const { COMMIT_SHA, RELEASE_TAG } = await import('./lib/channel/channel-schema.ts');
const { exec } = await import('./lib/ports/exec.ts');
const { writeFileAtomic } = await import('./lib/ports/atomic-write.ts');
const { hostTrustPolicy } = await import('./lib/host/host-trust.ts');
const { loadHostConfig } = await import('./lib/host/load-host-config.ts');
const { checkHostRoot } = await import('./lib/host/check-root.ts');
const { fetchReleaseTag, whileNoTick } = await import('./lib/host/release-tag.ts');
const { helmPort } = await import('./lib/host/chart/helm-port.ts');
const { imagesValues } = await import('./lib/host/chart/chart-values.ts');
const { chartBundleName, verifiedReleaseChart } = await import('./lib/host/chart/release-chart.ts');
const { chartFilesFromDir, packageChart } = await import('./lib/host/chart/package-chart.ts');
const { pushChart } = await import('./lib/host/chart/oci-chart.ts');
const { chooseSigner } = await import('./lib/promotion/promote-signer.ts');
const { evidenceFileName, releaseEvidence } = await import('./lib/host/chart/release-evidence.ts');
const { lockFileName } = await import('./lib/lock/lock-schema.ts');
const { parseLock } = await import('./lib/lock/parse-lock.ts');
const { readFileBounded } = await import('./lib/signing/read-bounded.ts');

const log = stderrLog('prepare-release-chart');

const cmd = command({
  name: 'prepare-release-chart',
  description:
    "On a chart host: prepare-release-chart.ts <tag> <commit> <dir> <helm> [<evidence>]. Verify the joint lock release-<tag>.chart.json (release trust; its commit must be the tag's and <commit>),\n" +
    'its evidence manifest release-<tag>.evidence.json (release trust; or <evidence>, a local copy, verified with the published signature), against the lock, the chart and its signature,\n' +
    "pull the chart with <helm> by the OCI digest the lock names, check the digest Helm reports, the chart's signature, its Chart.yaml (name, version = release) and its image keys against the lock,\n" +
    'then write <dir>/<name>-<version>.tgz and <dir>/<tag>.images.yaml (the pins, the last values file of a manual `helm upgrade`). Nothing is written unless every check passes.\n' +
    'Settings come from /etc/hephaestus/reconcile.env as for a tick (HEPHAESTUS_REPOSITORY, HEPHAESTUS_RELEASE_KEYS or _IDENTITY, HEPHAESTUS_RELEASE_URL).\n' +
    'Exit status: 0 written, 1 verification or download failure, 2 configuration or usage error, 75 a tick is running (nothing touched).',
  args: {
    tag: positional({ type: string, displayName: 'tag' }),
    commit: positional({ type: string, displayName: 'commit' }),
    dir: positional({ type: string, displayName: 'dir' }),
    helm: positional({ type: string, displayName: 'helm' }),
    evidence: positional({
      type: optional(string),
      displayName: 'evidence',
      description:
        "a local copy of the release's evidence manifest (e.g. releases/<tag>/security/release-images.json); verified with the published signature instead of the published manifest",
    }),
    json: flag({ long: 'json', description: 'print {"chart","values","reference","commit"} as one JSON object' }),
  },
  handler: async ({ tag, commit, dir, helm, evidence, json }) => {
    if (!RELEASE_TAG.test(tag)) throw new UsageError(`Cannot prepare chart: tag "${tag}" is not vX.Y.Z`);
    if (!COMMIT_SHA.test(commit))
      throw new UsageError(`Cannot prepare chart: commit "${commit}" is not 40 lower-case hex digits`);
    if (helm.startsWith('-'))
      throw new UsageError(`Cannot prepare chart: helm "${helm}" must be a program, not an option`);
    const config = await loadHostConfig();
    const policy = await hostTrustPolicy(config, 'release', (message) => log('trust', { message }));
    await checkHostRoot(config.HEPHAESTUS_ROOT);
    return whileNoTick(config, 'Cannot prepare chart', async () => {
      const { checkout, tagCommit } = await fetchReleaseTag(config, tag, commit, 'Cannot prepare chart');
      const port = helmPort(exec, {
        binary: helm,
        release: config.HEPHAESTUS_CHART_RELEASE,
        namespace: config.HEPHAESTUS_CHART_NAMESPACE,
        waitTimeoutSeconds: config.HEPHAESTUS_WAIT_TIMEOUT,
        kubeconfig: config.KUBECONFIG,
      });
      const out = resolve(dir);
      const local =
        evidence === undefined
          ? undefined
          : await readFileBounded(resolve(evidence)).catch((cause: Error) => {
              throw new UsageError(`Cannot read the evidence manifest "${evidence}": ${cause.message}`, { cause });
            });
      const verified = await verifiedReleaseChart({
        source: {
          checkout,
          releaseUrl: config.HEPHAESTUS_RELEASE_URL,
          timeoutMs: config.HEPHAESTUS_FETCH_TIMEOUT * 1000,
        },
        tag,
        tagCommit,
        policy,
        helm: port,
        chartDir: out,
        ...(local === undefined ? {} : { evidence: local }),
      });
      const pins = Object.fromEntries(verified.summary.imageVariables.map((v) => [v, verified.lock.images[v] ?? '']));
      const values = join(out, `${tag}.images.yaml`);
      await writeFileAtomic(values, imagesValues({ name: tag, commit }, pins), { mode: 0o600 });
      log('prepared', { chart: verified.archive, values, reference: verified.lock.chart.reference });
      const result = { chart: verified.archive, values, reference: verified.lock.chart.reference, commit };
      process.stdout.write(json ? `${JSON.stringify(result)}\n` : `chart: ${result.chart}\nvalues: ${result.values}\n`);
      return 0;
    });
  },
});

const produce = command({
  name: 'prepare-release-chart --produce',
  description:
    'In the release workflow: package <chart-dir> with the release version (vX.Y.Z -> X.Y.Z), push it to <registry>/<repository>:<version> as a Helm OCI artifact\n' +
    '(config application/vnd.cncf.helm.config.v1+json, layer application/vnd.cncf.helm.chart.content.v1.tar+gzip), sign the package bytes with --key or --keyless,\n' +
    'and write <out>/<name>-<version>.tgz, <out>/release-<tag>.chart.tgz.sigstore.json and <out>/chart.json ({"name","version","reference"} for `prepare-release-lock.ts --produce --chart`).\n' +
    "With --username and --password-env the push answers the registry's login challenge (Basic, or a Bearer token as ghcr.io asks); plain HTTP only on 127.0.0.1/localhost.\n" +
    'Exit status: 0 written, 1 push or signing failure, 2 usage or input error.',
  args: {
    produce: flag({ long: 'produce', description: 'produce (release workflow) instead of verifying (host)' }),
    chartDir: option({
      long: 'chart-dir',
      type: string,
      description: 'the chart folder at the release commit, e.g. deploy/chart/hephaestus',
    }),
    release: option({ long: 'release', type: string, description: 'release tag vX.Y.Z' }),
    registry: option({ long: 'registry', type: string, description: 'registry host, e.g. ghcr.io or 127.0.0.1:5000' }),
    repository: option({
      long: 'repository',
      type: string,
      description: 'repository in the registry, e.g. acme/charts/hephaestus',
    }),
    out: option({ long: 'out', type: string, description: 'folder for chart.json and the package bundle' }),
    key: option({ long: 'key', type: optional(string), description: 'sign with this P-256 private key (PKCS#8 PEM)' }),
    keyless: flag({ long: 'keyless', description: "sign keyless with the CI's OIDC identity" }),
    username: option({
      long: 'username',
      type: optional(string),
      description: 'registry user (ghcr.io: the workflow actor); the password comes from --password-env',
    }),
    passwordEnv: option({
      long: 'password-env',
      type: optional(string),
      description: 'the environment variable holding the registry password or token (never a command-line value)',
    }),
  },
  handler: async (args) => {
    if (!RELEASE_TAG.test(args.release))
      throw new UsageError(`Cannot produce chart: release "${args.release}" is not vX.Y.Z`);
    if ((args.username === undefined) !== (args.passwordEnv === undefined))
      throw new UsageError('Cannot produce chart: pass --username and --password-env together');
    const password = args.passwordEnv === undefined ? undefined : process.env[args.passwordEnv];
    if (args.passwordEnv !== undefined && (password === undefined || password === ''))
      throw new UsageError(
        `Cannot produce chart: the environment variable ${args.passwordEnv} (--password-env) is not set`,
      );
    const credentials =
      args.username === undefined || password === undefined ? undefined : { username: args.username, password };
    if (!/^[a-z0-9.-]+(:\d+)?$/.test(args.registry))
      throw new UsageError(`Cannot produce chart: registry "${args.registry}" is not a host[:port]`);
    if (!/^[a-z0-9][a-z0-9._/-]*$/.test(args.repository))
      throw new UsageError(`Cannot produce chart: repository "${args.repository}" is not a repository path`);
    const sign = await chooseSigner({
      key: args.key,
      keyless: args.keyless,
      fulcioURL: undefined,
      rekorURL: undefined,
    });
    const version = args.release.slice(1);
    const { archive, name, metadata } = packageChart(await chartFilesFromDir(resolve(args.chartDir)), version);
    const reference = await pushChart(args.registry, args.repository, version, archive, metadata, credentials);
    log('push', { reference });
    const out = resolve(args.out);
    await writeFileAtomic(join(out, `${name}-${version}.tgz`), archive);
    await writeFileAtomic(join(out, chartBundleName(args.release)), await sign(archive));
    await writeFileAtomic(join(out, 'chart.json'), `${JSON.stringify({ name, version, reference })}\n`);
    log('sign', { bundle: join(out, chartBundleName(args.release)) });
    process.stdout.write(`${reference}\n`);
    return 0;
  },
});

const evidenceCommand = command({
  name: 'prepare-release-chart --evidence',
  description:
    'In the release workflow, after --produce and `prepare-release-lock.ts --produce --chart`: write <dir>/release-<tag>.evidence.json, the evidence manifest over\n' +
    'the joint lock, the chart package and its signature in <dir> (docs/formats/release-evidence.md), and sign it into <dir>/release-<tag>.evidence.json.sigstore.json.\n' +
    'Exit status: 0 written, 1 signing failure, 2 usage or input error (a missing or malformed file).',
  args: {
    evidence: flag({ long: 'evidence', description: 'write and sign the evidence manifest' }),
    release: option({ long: 'release', type: string, description: 'release tag vX.Y.Z' }),
    dir: option({ long: 'dir', type: string, description: 'the folder --produce and prepare-release-lock wrote' }),
    key: option({ long: 'key', type: optional(string), description: 'sign with this P-256 private key (PKCS#8 PEM)' }),
    keyless: flag({ long: 'keyless', description: "sign keyless with the CI's OIDC identity" }),
  },
  handler: async (args) => {
    if (!RELEASE_TAG.test(args.release))
      throw new UsageError(`Cannot write the evidence: release "${args.release}" is not vX.Y.Z`);
    const dir = resolve(args.dir);
    const read = (file: string) =>
      readFileBounded(join(dir, file)).catch((cause: Error) => {
        throw new UsageError(`Cannot write the evidence of ${args.release}: ${cause.message}`, { cause });
      });
    const lockFile = lockFileName(args.release, 'chart');
    const lockBytes = await read(lockFile);
    const lock = parseLock(lockBytes, lockFile, 'chart');
    if (!('kind' in lock) || lock.release !== args.release)
      throw new UsageError(`Cannot write the evidence: ${lockFile} is not the joint lock of ${args.release}`);
    const packageFile = `${lock.chart.name}-${lock.chart.version}.tgz`;
    const signatureFile = chartBundleName(args.release);
    const manifest = releaseEvidence({
      lock,
      lockFile,
      lockBytes,
      packageFile,
      packageBytes: await read(packageFile),
      signatureFile,
      signatureBytes: await read(signatureFile),
    });
    const sign = await chooseSigner({
      key: args.key,
      keyless: args.keyless,
      fulcioURL: undefined,
      rekorURL: undefined,
    });
    const bytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    const file = join(dir, evidenceFileName(args.release));
    await writeFileAtomic(file, bytes);
    await writeFileAtomic(`${file}.sigstore.json`, await sign(bytes));
    log('evidence', { file, lock: manifest.lock.sha256, package: manifest.chart.package.sha256 });
    process.stdout.write(`${file}\n`);
    return 0;
  },
});

const argv = process.argv.slice(2);
await runCli(
  'prepare-release-chart',
  argv.includes('--produce') ? produce : argv.includes('--evidence') ? evidenceCommand : cmd,
  argv,
);
