#!/usr/bin/env node
// Dev box commands (spec: devbox-receipt-and-lease.md): `reconcile` delivers a commit, building only what changed;
// `deploy` applies the cluster layers, AAI and provider tokens first, then delivers the same way.
import './lib/cli/require-node.ts';
import { command, option, optional, string, number, flag } from 'cmd-ts';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from './lib/cli/run-cli.ts';
import { formatTable } from './lib/cli/table.ts';
import { UsageError } from './lib/errors/toolkit-error.ts';
import { kubeFromFile } from './lib/ports/kube.ts';
import { deliver, loadTargetProfile, planDelivery } from './lib/devbox/index.ts';
import { checkLayers, deploy, deploySettings } from './lib/devbox/deploy.ts';
import { keycloakAai } from './lib/devbox/deploy-keycloak.ts';
import type { DeliveryOutcome, TargetProfile } from './lib/devbox/index.ts';

const EXIT_CODES =
  'Exit status: 0 delivered (or plan printed), 1 failure (build, push, API: nothing recorded; sync timeout: recorded,\n' +
  'not yet Synced and Healthy),\n' +
  '2 usage or profile error, 3 refused: a takeover lease or another delivery holds the target.';

function kubeFor(profile: TargetProfile) {
  const file = profile.kubeconfigPath ?? process.env['KUBECONFIG']?.split(':')[0] ?? join(homedir(), '.kube', 'config');
  return kubeFromFile(file, profile.kube.context);
}

function printPlan(outcome: DeliveryOutcome): void {
  const rows = outcome.plan.map((p) => [p.name, p.build ? 'build' : 'keep', p.fingerprint.slice(0, 16), p.reasons.join('; ')]);
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
    target: option({ long: 'target', type: string, description: 'target name: its profile is <targets>/<name>.yaml' }),
    targets: option({ long: 'targets', type: string, defaultValue: () => 'targets', defaultValueIsSerializable: true, description: 'folder of target profiles' }),
    repo: option({ long: 'repo', type: string, defaultValue: () => '.', defaultValueIsSerializable: true, description: 'the checkout holding the catalogue' }),
    rev: option({ long: 'rev', type: string, defaultValue: () => 'HEAD', defaultValueIsSerializable: true, description: 'the commit to deliver' }),
    parallel: option({ long: 'parallel', type: optional(number), description: 'BuildKit Jobs at a time (default: the profile, else 1)' }),
    dryRun: flag({ long: 'dry-run', description: 'print which images would build and why; change nothing' }),
    json: flag({ long: 'json', description: 'print the outcome as JSON on stdout' }),
  },
  handler: async ({ target, targets, repo, rev, parallel, dryRun, json }) => {
    if (parallel !== undefined && (!Number.isInteger(parallel) || parallel < 1 || parallel > 16)) {
      throw new UsageError(`Cannot use --parallel ${parallel}: give a whole number from 1 to 16`);
    }
    const profile = await loadTargetProfile(resolve(targets), target);
    const options = { profile, kube: kubeFor(profile), checkout: resolve(repo), rev, parallel };
    const outcome = dryRun ? await planDelivery(options) : await deliver(options);
    if (json) {
      const plan = outcome.plan.map((p) => ({ image: p.name, build: p.build, fingerprint: p.fingerprint, reasons: p.reasons }));
      process.stdout.write(`${JSON.stringify({ schema: 1, target, dryRun, commit: outcome.commit, plan, images: outcome.images })}\n`);
    } else if (dryRun) printPlan(outcome);
    else process.stdout.write(`delivered ${outcome.commit} to ${target}: ${outcome.plan.filter((p) => p.build).length} built, ${outcome.plan.filter((p) => !p.build).length} kept\n`);
    return 0;
  },
});

function printOutcome(target: string, outcome: DeliveryOutcome, json: boolean, command: string): void {
  if (json) {
    const plan = outcome.plan.map((p) => ({ image: p.name, build: p.build, fingerprint: p.fingerprint, reasons: p.reasons }));
    process.stdout.write(`${JSON.stringify({ schema: 1, command, target, commit: outcome.commit, plan, images: outcome.images, steps: outcome.steps })}\n`);
  } else process.stdout.write(`${command === 'deploy' ? 'deployed' : 'delivered'} ${outcome.commit} to ${target}: ${outcome.plan.filter((p) => p.build).length} built, ${outcome.plan.filter((p) => !p.build).length} kept\n`);
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
    target: option({ long: 'target', type: string, description: 'target name: its profile is <targets>/<name>.yaml' }),
    targets: option({ long: 'targets', type: string, defaultValue: () => 'targets', defaultValueIsSerializable: true, description: 'folder of target profiles' }),
    repo: option({ long: 'repo', type: string, defaultValue: () => '.', defaultValueIsSerializable: true, description: 'the checkout holding the catalogue' }),
    rev: option({ long: 'rev', type: string, defaultValue: () => 'HEAD', defaultValueIsSerializable: true, description: 'the commit to deliver' }),
    parallel: option({ long: 'parallel', type: optional(number), description: 'BuildKit Jobs at a time (default: the profile, else 1)' }),
    check: flag({ long: 'check', description: "run the cluster layers in Ansible's check mode (--check --diff); claim and change nothing" }),
    json: flag({ long: 'json', description: 'print the outcome as JSON on stdout' }),
  },
  handler: async ({ target, targets, repo, rev, parallel, check, json }) => {
    if (parallel !== undefined && (!Number.isInteger(parallel) || parallel < 1 || parallel > 16)) {
      throw new UsageError(`Cannot use --parallel ${parallel}: give a whole number from 1 to 16`);
    }
    const profile = await loadTargetProfile(resolve(targets), target);
    const settings = deploySettings(profile);
    if (check) {
      const layers = await checkLayers({ profile });
      if (json) process.stdout.write(`${JSON.stringify({ schema: 1, command: 'deploy', target, check: true, layers })}\n`);
      else for (const l of layers) process.stdout.write(`layer ${l.layer}: ${l.summary}\n`);
      return 0;
    }
    const aai = settings.aai === undefined ? undefined : keycloakAai(settings.aai.issuer, settings.aai.credentials);
    const outcome = await deploy({ profile, kube: kubeFor(profile), checkout: resolve(repo), rev, parallel, aai });
    printOutcome(target, outcome, json, 'deploy');
    return 0;
  },
});

const [sub, ...rest] = process.argv.slice(2);
if (sub === 'reconcile') await runCli('devbox reconcile', reconcile, rest);
else if (sub === 'deploy') await runCli('devbox deploy', deployCommand, rest);
else if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
  process.stdout.write(`devbox <command> [options]\n\nCommands:\n  reconcile   deliver a commit to a dev box target (devbox reconcile --help)\n  deploy      cluster layers, AAI, provider tokens, then the delivery (devbox deploy --help)\n\n${EXIT_CODES}\n`);
  process.exitCode = sub === undefined ? 2 : 0;
} else {
  process.stderr.write(`devbox: error [usage]: unknown command "${sub}" (try: devbox --help)\n`);
  process.exitCode = 2;
}
