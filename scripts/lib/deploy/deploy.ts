import { DeployError } from './deploy-error.ts';
import { deliver } from '../delivery/deliver.ts';
import type { DeliverOptions, DeliveryOutcome } from '../delivery/deliver.ts';
import { ansiblePlaybook } from './deploy-ansible.ts';
import type { Ansible } from './deploy-ansible.ts';
import type { Aai } from './deploy-aai.ts';
import { fileTokens } from './deploy-tokens.ts';
import type { TokenSource } from './deploy-tokens.ts';
import { deployResume, deploySteps, runLayer, settingsHash } from './deploy-steps.ts';
import { DELIVERY_STEPS } from '../delivery/delivery-steps.ts';
import { claim } from '../delivery/steps/claim.ts';
import { readJournal } from '../steps/jsonl-journal.ts';
import { targetStatePaths } from '../target/state-paths.ts';
import type { TargetProfile } from '../target/target-profile.ts';
import type { DeployProfile } from '../target/deploy-profile.ts';

export interface DeployOptions extends Omit<DeliverOptions, 'steps' | 'command' | 'resume'> {
  readonly ansible?: Ansible;
  readonly aai?: Aai;
  readonly tokens?: TokenSource;
}

export function deploySettings(profile: TargetProfile): DeployProfile {
  if (profile.deploy === undefined) {
    throw new DeployError(
      'no-deploy-settings',
      `Cannot deploy to target "${profile.name}": its profile "${profile.file}" has no "deploy" section (docs/devbox.md, first setup)`,
      { details: { file: profile.file } },
    );
  }
  return profile.deploy;
}

/**
 * `make deploy`: the cluster layers first, before anything reads the cluster (on a fresh box they make it: k3s, then
 * the bootstrap's Argo CD, Git server, AppProjects, fence, root Application and namespaces); then it claims the target
 * (refused under an unexpired lease; an expired one is cleaned first) with a `delivery` record that lasts the deploy's
 * ttl, so takeover refuses while it runs; then the bases, AAI and provider tokens, then the delivery's own steps, all
 * in one journal. A rerun after a crash skips the deploy steps
 * the unfinished run completed for the same commit and settings, and repeats every delivery step (each converges).
 */
export async function deploy(options: DeployOptions): Promise<DeliveryOutcome> {
  const settings = deploySettings(options.profile);
  const tokens = options.tokens ?? fileTokens;
  // A token file the user must fix fails now, before the target is claimed or any layer runs.
  for (const entry of settings.tokens) await tokens(entry.file);
  const paths = await targetStatePaths(options.checkout, options.profile.name);
  const journaled = await readJournal(paths.journal);
  const hash = settingsHash(settings, options.profile.registry.host);
  const ports = { ansible: options.ansible ?? ansiblePlaybook, aai: options.aai, tokens };
  // The claim's record must outlive the cluster layers, which take longer than a delivery.
  const profile: TargetProfile = { ...options.profile, delivery: { ...options.profile.delivery, ttl: settings.ttl } };
  const { layers, after } = deploySteps(settings, ports);
  const steps = [...layers, claim, ...after, ...DELIVERY_STEPS.filter((s) => s !== claim)];
  const resume = (commit: string) => deployResume(journaled, settings, commit, hash);
  return deliver({ ...options, profile, command: 'deploy', steps, resume, lazyFirstRead: true });
}

/** `deploy --check`: the cluster layers in Ansible's check mode; claims nothing and changes nothing. */
export async function checkLayers(
  options: Pick<DeployOptions, 'profile' | 'ansible' | 'log'> & { readonly checkout?: string },
): Promise<{ layer: string; summary: string }[]> {
  const settings = deploySettings(options.profile);
  const log = options.log ?? ((line: string) => process.stderr.write(`devbox: ${line}\n`));
  const out = [];
  for (const layer of settings.layers) {
    const result = await runLayer(
      options.ansible ?? ansiblePlaybook,
      layer,
      settings,
      options.profile.registry.host,
      true,
      (line) => log(`layer ${layer}: ${line}`),
      options.checkout,
    );
    log(`step=layer-${layer} ${result.summary}`);
    out.push({ layer, summary: result.summary });
  }
  return out;
}
