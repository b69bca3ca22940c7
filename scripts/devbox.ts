#!/usr/bin/env node
// Dev box commands (spec: devbox-receipt-and-lease.md): `reconcile` delivers a commit, building only what changed;
// `deploy` applies the cluster layers, AAI and provider tokens first, then delivers the same way.
import './lib/cli/require-node.ts';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Kube } from './lib/ports/kube.ts';
import type { LeaseRecord } from './lib/ownership/lease-record.ts';
import type { DeliveryOutcome } from './lib/delivery/deliver.ts';
import type { TargetProfile } from './lib/target/target-profile.ts';
import type { RunnerOutcome } from './lib/runner/run-through-runner.ts';
import { exitAfterWriting, exitOnSavedHelp } from './lib/cli/saved-help.ts';
import { skipZodLocales } from './lib/errors/skip-zod-locales.ts';

const EXIT_CODES =
  'Exit status: 0 delivered (or plan printed), 1 failure (build, push, API: nothing recorded; sync timeout: recorded,\n' +
  'not yet Synced and Healthy),\n' +
  '2 usage or profile error, 3 refused: a takeover lease or another delivery holds the target.';

const [sub, ...rest] = process.argv.slice(2);
// The command list is a string and `devbox <command> --help` the text cmd-ts rendered when it was saved: neither loads cmd-ts.
if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help')
  await exitAfterWriting(
    process.stdout,
    `devbox <command> [options]\n\nCommands:\n  reconcile   deliver a commit to a dev box target (devbox reconcile --help)\n  deploy      cluster layers, AAI, provider tokens, then the delivery (devbox deploy --help)\n\nOn a Linux runner (run over ssh by reconcile/deploy --runner; see docs/devbox.md):\n  runner-have, runner-receive, runner-run, runner-receipt\n\n${EXIT_CODES}\n`,
    sub === undefined ? 2 : 0,
  );
await exitOnSavedHelp(new URL('./help/devbox.json', import.meta.url), sub ?? '', rest);
// zod in English only, before the modules below load: its other languages are ~60 modules nothing here reads.
skipZodLocales();
// Loaded after the help check: a help request loads none of them.
const { command, option, optional, string, number, flag, restPositionals, oneOf } = await import('cmd-ts');
const { runCli } = await import('./lib/cli/run-cli.ts');
const { repoOption, targetsOption } = await import('./commands/common-options.ts');
const { formatTable } = await import('./lib/cli/table.ts');
const { UsageError } = await import('./lib/errors/toolkit-error.ts');
const { kubeFromFile } = await import('./lib/ports/kube.ts');
const { deliver, planDelivery } = await import('./lib/delivery/deliver.ts');
const { loadTargetProfile } = await import('./lib/target/target-profile.ts');
const { checkLayers, deploy, deploySettings } = await import('./lib/deploy/deploy.ts');
const { keycloakAai } = await import('./lib/deploy/deploy-keycloak.ts');
const { lazyKube } = await import('./lib/deploy/lazy-kube.ts');
const { readReceipt } = await import('./lib/target/receipt.ts');
const { targetStatePaths } = await import('./lib/target/state-paths.ts');
const { chooseRunner } = await import('./lib/runner/use-runner.ts');
const { runThroughRunner } = await import('./lib/runner/run-through-runner.ts');
const { haveCommits, receiveBundle } = await import('./lib/runner/receive-bundle.ts');
const { runOnRunner, RUNNER_COMMANDS } = await import('./lib/runner/runner-run.ts');
const { runnerPaths } = await import('./lib/runner/runner-paths.ts');

/**
 * What the clean-up of an expired lease stops here besides the cluster's part: the holder's containers by label
 * and its Telepresence routes (takeover's code, loaded only when there is such a lease).
 */
function leaseRuntimesOf(profile: TargetProfile, kube: Kube, checkout: string) {
  return async (record: LeaseRecord): Promise<string[]> => {
    const { leaseRuntimeStopper } = await import('./lib/takeover/lease-runtime-stopper.ts');
    const log = (line: string) => process.stderr.write(`devbox: ${line}\n`);
    return (await leaseRuntimeStopper({ profile, kube, checkout, log }))(record);
  };
}

function kubeFor(profile: TargetProfile) {
  const file = profile.kubeconfigPath ?? process.env['KUBECONFIG']?.split(':')[0] ?? join(homedir(), '.kube', 'config');
  return kubeFromFile(file, profile.kube.context);
}

/** Runs `reconcile` or `deploy` on the profile's runner host with the options it was given; a dry run records no receipt. */
function throughRunner(
  command: 'reconcile' | 'deploy',
  runner: NonNullable<Awaited<ReturnType<typeof resolveTarget>>['via']>,
  given: { profile: TargetProfile; repo: string; rev: string; parallel: number | undefined; json: boolean },
  dry: readonly string[],
) {
  return runThroughRunner({
    profile: given.profile,
    runner,
    checkout: resolve(given.repo),
    rev: given.rev,
    command,
    args: [
      ...(given.parallel === undefined ? [] : ['--parallel', String(given.parallel)]),
      ...dry,
      ...(given.json ? ['--json'] : []),
    ],
    remoteRoot: remoteRoot(),
    receipt: dry.length === 0,
  });
}

/** What `reconcile` and `deploy` both take: the target, the commit and how to build it; --json; --runner. */
const deliveryArgs = {
  target: option({ long: 'target', type: string, description: 'target name: its profile is <targets>/<name>.yaml' }),
  targets: targetsOption(),
  repo: repoOption('the checkout holding the catalogue'),
  rev: option({
    long: 'rev',
    type: string,
    defaultValue: () => 'HEAD',
    defaultValueIsSerializable: true,
    description: 'the commit to deliver',
  }),
  parallel: option({
    long: 'parallel',
    type: optional(number),
    description: 'BuildKit Jobs at a time (default: the profile, else 1)',
  }),
  json: flag({ long: 'json', description: 'print the outcome as JSON on stdout' }),
  runner: flag({ long: 'runner', description: "go through the profile's SSH Linux runner (the default on macOS)" }),
};

async function resolveTarget(targets: string, target: string, parallel: number | undefined, runner: boolean) {
  if (parallel !== undefined && (!Number.isInteger(parallel) || parallel < 1 || parallel > 16)) {
    throw new UsageError(`Cannot use --parallel ${parallel}: give a whole number from 1 to 16`);
  }
  const profile = await loadTargetProfile(resolve(targets), target);
  return { profile, via: chooseRunner(profile, process.platform, runner) };
}

function printPlan(outcome: DeliveryOutcome): void {
  const rows = outcome.plan.map((p) => [
    p.name,
    p.build ? 'build' : 'keep',
    p.fingerprint.slice(0, 16),
    p.reasons.join('; '),
  ]);
  process.stdout.write(`commit: ${outcome.commit}\n`);
  process.stdout.write(formatTable(['IMAGE', 'ACTION', 'FINGERPRINT', 'WHY'], rows));
}

const reconcile = command({
  name: 'devbox reconcile',
  description:
    'Deliver a commit to a dev box target: push it to the in-cluster Git server, build the images whose fingerprint\n' +
    'changed with BuildKit Jobs, record the receipt, sync the root Application and wait until Synced and Healthy.\n' +
    EXIT_CODES,
  args: {
    ...deliveryArgs,
    dryRun: flag({ long: 'dry-run', description: 'print which images would build and why; change nothing' }),
  },
  handler: async ({ target, targets, repo, rev, parallel, dryRun, json, runner }) => {
    const { profile, via } = await resolveTarget(targets, target, parallel, runner);
    if (via !== undefined) {
      printRunnerOutcome(
        target,
        await throughRunner('reconcile', via, { profile, repo, rev, parallel, json }, dryRun ? ['--dry-run'] : []),
        'reconcile',
      );
      return 0;
    }
    const kube = kubeFor(profile);
    const checkout = resolve(repo);
    const stopLeaseRuntimes = leaseRuntimesOf(profile, kube, checkout);
    const options = { profile, kube, checkout, rev, parallel, stopLeaseRuntimes };
    const outcome = dryRun ? await planDelivery(options) : await deliver(options);
    if (json) {
      const plan = outcome.plan.map((p) => ({
        image: p.name,
        build: p.build,
        fingerprint: p.fingerprint,
        reasons: p.reasons,
      }));
      process.stdout.write(
        `${JSON.stringify({ schema: 1, target, dryRun, commit: outcome.commit, plan, images: outcome.images })}\n`,
      );
    } else if (dryRun) printPlan(outcome);
    else
      process.stdout.write(
        `delivered ${outcome.commit} to ${target}: ${outcome.plan.filter((p) => p.build).length} built, ${outcome.plan.filter((p) => !p.build).length} kept\n`,
      );
    return 0;
  },
});

function printOutcome(target: string, outcome: DeliveryOutcome, json: boolean, command: string): void {
  if (json) {
    const plan = outcome.plan.map((p) => ({
      image: p.name,
      build: p.build,
      fingerprint: p.fingerprint,
      reasons: p.reasons,
    }));
    process.stdout.write(
      `${JSON.stringify({ schema: 1, command, target, commit: outcome.commit, plan, images: outcome.images, steps: outcome.steps })}\n`,
    );
  } else
    process.stdout.write(
      `${command === 'deploy' ? 'deployed' : 'delivered'} ${outcome.commit} to ${target}: ${outcome.plan.filter((p) => p.build).length} built, ${outcome.plan.filter((p) => !p.build).length} kept\n`,
    );
}

const DEPLOY_EXIT_CODES =
  'Exit status: 0 deployed (or layers checked), 1 failure (a layer, AAI, a build, the API: rerun to resume),\n' +
  '2 usage, profile or token file error, 3 refused: a takeover lease or another delivery holds the target.';

const deployCommand = command({
  name: 'devbox deploy',
  description:
    'Set up or update a dev box: claim the target (refused while a takeover lease is unexpired; an expired one is\n' +
    'cleaned first), apply the cluster layers with ansible-playbook (deploy/ansible: host, k3s, bootstrap), register\n' +
    'the AAI clients and copy the provider tokens into their Secrets, then deliver the commit as `reconcile` does.\n' +
    'A rerun after a crash resumes: layers the unfinished run completed for the same commit are not applied again.\n' +
    DEPLOY_EXIT_CODES,
  args: {
    ...deliveryArgs,
    check: flag({
      long: 'check',
      description: "run the cluster layers in Ansible's check mode (--check --diff); claim and change nothing",
    }),
  },
  handler: async ({ target, targets, repo, rev, parallel, check, json, runner }) => {
    const { profile, via } = await resolveTarget(targets, target, parallel, runner);
    if (via !== undefined) {
      printRunnerOutcome(
        target,
        await throughRunner('deploy', via, { profile, repo, rev, parallel, json }, check ? ['--check'] : []),
        'deploy',
      );
      return 0;
    }
    const settings = deploySettings(profile);
    if (check) {
      const layers = await checkLayers({ profile, checkout: resolve(repo) });
      if (json)
        process.stdout.write(`${JSON.stringify({ schema: 1, command: 'deploy', target, check: true, layers })}\n`);
      else for (const l of layers) process.stdout.write(`layer ${l.layer}: ${l.summary}\n`);
      return 0;
    }
    const aai = settings.aai === undefined ? undefined : keycloakAai(settings.aai.issuer, settings.aai.credentials);
    // Loaded on first use: on a fresh box the k3s layer writes the kubeconfig.
    const kube = lazyKube(() => kubeFor(profile));
    const checkout = resolve(repo);
    const stopLeaseRuntimes = leaseRuntimesOf(profile, kube, checkout);
    const outcome = await deploy({ profile, kube, checkout, rev, parallel, aai, stopLeaseRuntimes });
    printOutcome(target, outcome, json, 'deploy');
    return 0;
  },
});

/** REMOTE_ROOT (DD-0045): the runner folder of an existing installation, whose private state is reused. */
function remoteRoot(): string | undefined {
  const value = process.env['REMOTE_ROOT'];
  if (value === undefined || value === '') return undefined;
  if (value.includes('\n') || value.includes('\0'))
    throw new UsageError(`Cannot use REMOTE_ROOT ${JSON.stringify(value)}: not a path`);
  return value;
}

function printRunnerOutcome(target: string, outcome: RunnerOutcome, command: string): void {
  // The remote command's own stdout (its table or JSON) is the result; the receipt line goes to the log.
  process.stdout.write(outcome.stdout);
  if (outcome.receiptFile !== undefined)
    process.stderr.write(
      `devbox: ${command} of ${outcome.commit.slice(0, 12)} to ${target} through the runner: receipt written to ${outcome.receiptFile}\n`,
    );
}

// The runner's side of the SSH runner: internal commands the workstation runs over ssh (docs/devbox.md, macOS).
const runnerHave = command({
  name: 'devbox runner-have',
  description: 'On a runner: print the commits its checkout holds (one per line), so the next bundle leaves them out.',
  args: { root: option({ long: 'root', type: string, description: "the runner's folder" }) },
  handler: async ({ root }) => {
    for (const c of await haveCommits(root)) process.stdout.write(`${c}\n`);
    return 0;
  },
});

const runnerReceive = command({
  name: 'devbox runner-receive',
  description:
    "On a runner: read a git bundle on stdin, check it carries exactly --commit, and check that commit out in the\nrunner's own checkout (<root>/checkout). Exit 2 when the bundle is not that commit.",
  args: {
    root: option({ long: 'root', type: string, description: "the runner's folder" }),
    commit: option({ long: 'commit', type: string, description: 'the 40-hex commit the bundle must carry' }),
  },
  handler: async ({ root, commit }) => {
    const received = await receiveBundle(root, commit, process.stdin);
    process.stderr.write(`checked out ${received.commit} in ${received.checkout}\n`);
    return 0;
  },
});

const runnerRun = command({
  name: 'devbox runner-run',
  description:
    "On a runner: run `devbox <command>` for --commit in the runner's own checkout with its own target profiles\n(<root>/targets); stopped when the connection drops (stdin closes). Arguments after -- go to the command.",
  args: {
    root: option({ long: 'root', type: string, description: "the runner's folder" }),
    command: option({ long: 'command', type: oneOf(RUNNER_COMMANDS), description: 'reconcile or deploy' }),
    target: option({ long: 'target', type: string, description: 'target name' }),
    commit: option({ long: 'commit', type: string, description: 'the commit to deliver' }),
    args: restPositionals({ type: string, displayName: 'args', description: 'arguments for the command' }),
  },
  handler: async ({ root, command: sub, target, commit, args }) =>
    runOnRunner({ root, command: sub, target, commit, args }),
});

const runnerReceipt = command({
  name: 'devbox runner-receipt',
  description:
    "On a runner: print the receipt of --target from the runner's checkout (.local/metallo/<target>/receipt.json).",
  args: {
    root: option({ long: 'root', type: string, description: "the runner's folder" }),
    target: option({ long: 'target', type: string, description: 'target name' }),
  },
  handler: async ({ root, target }) => {
    const receipt = await readReceipt((await targetStatePaths(runnerPaths(root).checkout, target)).receipt);
    if (receipt === undefined)
      throw new UsageError(`Cannot print the receipt of target "${target}": the runner has delivered nothing to it`);
    process.stdout.write(`${JSON.stringify(receipt)}\n`);
    return 0;
  },
});

const RUNNER_SIDE: Readonly<Record<string, Parameters<typeof runCli>[1]>> = {
  'runner-have': runnerHave,
  'runner-receive': runnerReceive,
  'runner-run': runnerRun,
  'runner-receipt': runnerReceipt,
};

if (sub === 'reconcile') await runCli('devbox reconcile', reconcile, rest);
else if (sub === 'deploy') await runCli('devbox deploy', deployCommand, rest);
else if (sub !== undefined && RUNNER_SIDE[sub] !== undefined) await runCli(`devbox ${sub}`, RUNNER_SIDE[sub], rest);
else {
  process.stderr.write(`devbox: error [usage]: unknown command "${sub}" (try: devbox --help)\n`);
  process.exitCode = 2;
}
