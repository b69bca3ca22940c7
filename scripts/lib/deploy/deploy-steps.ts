import { createHash } from 'node:crypto';
import type { Step, StepResult } from '../delivery/delivery-context.ts';
import type { Aai } from './deploy-aai.ts';
import { applyAaiClients } from './deploy-aai.ts';
import type { Ansible } from './deploy-ansible.ts';
import type { DeployProfile } from '../target/deploy-profile.ts';
import type { TokenSource } from './deploy-tokens.ts';
import { applyProviderTokens } from './deploy-tokens.ts';
import { DeployError } from './deploy-error.ts';
import type { JournalEntry } from '../steps/jsonl-journal.ts';
import type { ResumePolicy } from '../steps/resume-policy.ts';
import { sameInputs } from '../steps/same-inputs.ts';
import { exec } from '../ports/exec.ts';
import { loadCatalogue } from '../fingerprint/open-source.ts';
import { openGitTreeSource } from '../fingerprint/git-tree-source.ts';
import { catalogueBases, seedBases } from '../registry-seed/index.ts';

export interface DeployPorts {
  readonly ansible: Ansible;
  /** Required when the profile lists AAI clients. */
  readonly aai?: Aai;
  readonly tokens: TokenSource;
}

export const settingsHash = (deploy: DeployProfile, registryHost: string): string =>
  createHash('sha256').update(JSON.stringify({ deploy, registryHost })).digest('hex').slice(0, 16);

/** The deploy's own steps by name, in order: the ones a rerun after a crash may resume. */
export const deployStepNames = (deploy: DeployProfile): string[] => [
  ...deploy.layers.map((layer) => `layer-${layer}`),
  'bases',
  'aai',
  'provider-tokens',
];

/**
 * `same-inputs` over the journal: a deploy step the last deploy run completed for this commit and these settings,
 * when that run ended without `release` (killed, or failed), is journaled as resumed; a finished run resumes nothing.
 */
export function deployResume(
  entries: readonly JournalEntry[],
  deploy: DeployProfile,
  commit: string,
  settings: string,
): ResumePolicy {
  return sameInputs(entries, {
    command: 'deploy',
    inputs: { commit, settings },
    steps: deployStepNames(deploy),
    finishedBy: 'release',
  });
}

/**
 * One layer through the Ansible port; the registry host comes from the profile so the mirror names it, and the
 * platform checkout is where the bootstrap reads the root Application.
 */
export async function runLayer(
  ansible: Ansible,
  layer: string,
  deploy: DeployProfile,
  registryHost: string,
  check: boolean,
  progress: (line: string) => void,
  checkout?: string,
): Promise<StepResult> {
  const vars = {
    pharos_registry_host: registryHost,
    ...(checkout === undefined ? {} : { pharos_platform_dir: checkout }),
    ...deploy.vars,
  };
  const outcome = await ansible({
    layer,
    inventory: deploy.inventory,
    vars,
    check,
    timeoutMs: deploy.layerTimeout,
    line: progress,
  });
  const hosts = Object.entries(outcome.hosts);
  const changed = hosts.reduce((n, [, r]) => n + r.changed, 0);
  return {
    summary: `${check ? 'checked' : 'applied'} on ${hosts.map(([h]) => h).join(', ')}: ${changed} ${check ? 'would change' : 'changed'}`,
    fields: { hosts: outcome.hosts },
  };
}

export function layerStep(layer: string, deploy: DeployProfile, ports: DeployPorts): Step {
  return {
    name: `layer-${layer}`,
    run: (ctx) =>
      runLayer(
        ports.ansible,
        layer,
        deploy,
        ctx.profile.registry.host,
        false,
        (line) => ctx.progress(`layer ${layer}`, line),
        ctx.checkout,
      ),
  };
}

/** The bases the commit's Dockerfiles name, into the in-cluster registry the bootstrap layer made: builds need no egress. */
export function basesStep(deploy: DeployProfile): Step {
  return {
    name: 'bases',
    async run(ctx, state) {
      const source = await openGitTreeSource(ctx.checkout, state.commit);
      const registry = ctx.profile.registry.host;
      const bases = await catalogueBases(await loadCatalogue(source), (path) => source.readFile(path), registry);
      const options = { run: exec, registry, push: deploy.seed.push ?? registry, timeoutMs: deploy.layerTimeout };
      const seeded = await seedBases({ ...options, progress: (line) => ctx.progress('bases', line) }, bases);
      return {
        summary: `${seeded.length} base image(s) in ${registry}`,
        fields: { bases: Object.fromEntries(seeded.map((b) => [b.path, b.reference])) },
      };
    },
  };
}

export function aaiStep(deploy: DeployProfile, ports: DeployPorts): Step {
  return {
    name: 'aai',
    async run(ctx) {
      const aai = deploy.aai;
      if (aai === undefined || aai.clients.length === 0) return { summary: 'no AAI clients in the profile' };
      if (ports.aai === undefined)
        throw new DeployError('no-deploy-settings', `Cannot register AAI clients: no AAI adapter for "${aai.issuer}"`);
      const done = await applyAaiClients(ctx.kube, ports.aai, aai);
      return {
        summary: done.map((d) => `${d.client} → ${d.secret} ${d.action}`).join('; '),
        fields: { clients: done },
      };
    },
  };
}

export function tokensStep(deploy: DeployProfile, ports: DeployPorts): Step {
  return {
    name: 'provider-tokens',
    async run(ctx) {
      if (deploy.tokens.length === 0) return { summary: 'no provider tokens in the profile' };
      const done = await applyProviderTokens(ctx.kube, ports.tokens, deploy.tokens);
      return {
        summary: done.map((d) => `${d.provider} → ${d.secret} ${d.action}`).join('; '),
        fields: { tokens: done },
      };
    },
  };
}

/**
 * The deploy's own steps: the cluster layers in order, which run before the claim (they make the cluster it reads),
 * and the bases, AAI and tokens, which run after it.
 */
export function deploySteps(deploy: DeployProfile, ports: DeployPorts): { layers: Step[]; after: Step[] } {
  return {
    layers: deploy.layers.map((layer) => layerStep(layer, deploy, ports)),
    after: [basesStep(deploy), aaiStep(deploy, ports), tokensStep(deploy, ports)],
  };
}
