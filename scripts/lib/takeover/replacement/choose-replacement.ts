// `--replacement`: Telepresence when asked for (or, with `auto`, when its CLI answers), else the scale-to-zero fallback.
import { LeaseError } from '../../ownership/lease-error.ts';
import type { Kube } from '../../ports/kube.ts';
import {
  TELEPRESENCE_MINIMUM,
  telepresenceBinary,
  telepresenceReplacement,
  telepresenceVersion,
  tooOld,
} from './telepresence-replacement.ts';
import type { WorkloadReplacement } from '../../ownership/workload-replacement.ts';
import { scaleToZero } from '../../ownership/workload-replacement.ts';

export async function chooseReplacement(
  kind: string,
  kube: Kube,
  log: (line: string) => void,
): Promise<WorkloadReplacement> {
  if (kind === 'scale-to-zero') return scaleToZero(kube);
  const version = await telepresenceVersion();
  // An older client would fail mid hand-back (no `detach`): refuse it before anything is taken over.
  if (version !== undefined && tooOld(version))
    throw new LeaseError(
      'runtime-failed',
      `Cannot replace workloads through Telepresence ${version === 'unknown' ? '(its version line is unreadable)' : `v${version.join('.')}`}: takeover speaks Telepresence ${TELEPRESENCE_MINIMUM.slice(0, 2).join('.')} or later (docs/takeover.md "Telepresence"); upgrade it, or use --replacement scale-to-zero`,
    );
  if (version !== undefined) return telepresenceReplacement({ log });
  if (kind === 'telepresence')
    throw new LeaseError(
      'runtime-failed',
      `Cannot replace workloads through Telepresence: "${telepresenceBinary()} version" does not answer (install it, set PHAROS_TELEPRESENCE, or use --replacement scale-to-zero)`,
    );
  log(`telepresence not found ("${telepresenceBinary()} version" failed): workloads are scaled to zero instead`);
  return scaleToZero(kube);
}
