// Another workstation's held takeover lease on a test dev box, written as takeover writes it: the lease refusals'
// and the expired-lease clean-up's starting point.
import { newLease } from '../../../scripts/lib/ownership/lease-record.ts';
import type { LeaseRecord } from '../../../scripts/lib/ownership/lease-record.ts';
import { readOwnership, writeOwnership } from '../../../scripts/lib/ownership/ownership-store.ts';
import type { OwnershipSnapshot } from '../../../scripts/lib/ownership/ownership-store.ts';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';

const REF = { namespace: 'argocd', name: 'pharos-platform-ownership' };

/** `ana-laptop:/home/ana/platform` holds `themelio-compat` for an hour from `acquired`; `before` is the record it replaced. */
export async function writeHeldLease(
  kube: Kube,
  acquired: Date = new Date(),
): Promise<{ before: OwnershipSnapshot; lease: LeaseRecord }> {
  const before = await readOwnership(kube, REF);
  const lease = {
    ...newLease(
      { checkout: '/home/ana/platform', workstation: 'ana-laptop' },
      ['themelio-compat'],
      JSON.parse(before.data['revision'] ?? '""') as string,
      acquired,
      3_600_000,
    ),
    state: 'held' as const,
  };
  await writeOwnership(kube, before, { lease });
  return { before, lease };
}
