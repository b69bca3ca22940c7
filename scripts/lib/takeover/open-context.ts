// A takeover command's context from its options: the target's profile, its cluster, this checkout, the replacement.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadTargetProfile } from '../target/target-profile.ts';
import type { TargetProfile } from '../target/target-profile.ts';
import { kubeFromFile } from '../ports/kube.ts';
import { makeTakeoverContext } from './make-context.ts';
import { chooseReplacement } from './replacement/choose-replacement.ts';
import type { TakeoverContext } from './takeover-context.ts';

/** What every takeover command names: the target, the folder of profiles, this checkout. */
export interface TargetArgs {
  readonly target: string;
  readonly targets: string;
  readonly repo: string;
}

export interface OpenContextOptions {
  readonly ttlMs?: number;
  /** `auto`, `telepresence` or `scale-to-zero` (the default: commands that make no replacement). */
  readonly replacement?: string;
  readonly log?: (line: string) => void;
}

/** The profile's kubeconfig, else the first of `$KUBECONFIG`, else `~/.kube/config`. */
export function kubeconfigOf(profile: TargetProfile): string {
  return profile.kubeconfigPath ?? process.env['KUBECONFIG']?.split(':')[0] ?? join(homedir(), '.kube', 'config');
}

export async function openTakeoverContext(
  args: TargetArgs,
  options: OpenContextOptions = {},
): Promise<TakeoverContext> {
  const log = options.log ?? ((line: string) => process.stderr.write(`takeover: ${line}\n`));
  const profile = await loadTargetProfile(resolve(args.targets), args.target);
  const kube = kubeFromFile(kubeconfigOf(profile), profile.kube.context);
  const replacement = await chooseReplacement(options.replacement ?? 'scale-to-zero', kube, log);
  return makeTakeoverContext({
    profile,
    kube,
    checkout: resolve(args.repo),
    ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
    replacement,
    ...(options.log === undefined ? {} : { log: options.log }),
  });
}
