// What the images were last built from: a dev box receipt's fingerprints, or the fingerprint labels of the images a
// release lock pins (the lock itself carries digests only; the labels are what build/publish wrote).
import { dag } from '@dagger.io/dagger';
import type { File } from '@dagger.io/dagger';
import { LABEL_FINGERPRINT } from '../lib/delivery/build-job.ts';
import { imageVariable } from '../lib/lock/produce-lock.ts';
import { parseLock } from '../lib/lock/parse-lock.ts';
import { ModuleError } from './module-error.ts';
import { readReceiptFile } from './read-receipt.ts';

/** Catalogue name -> fingerprint last built; an image it does not name is rebuilt. Undefined: build everything. */
export async function previousFingerprints(
  names: readonly string[],
  receipt: File | undefined,
  lock: File | undefined,
): Promise<ReadonlyMap<string, string> | undefined> {
  if (receipt !== undefined && lock !== undefined)
    throw new ModuleError('bad-argument', 'Invalid arguments "receipt" and "lock": pass at most one');
  if (receipt !== undefined) {
    const parsed = await readReceiptFile(receipt);
    return new Map(Object.entries(parsed.images).map(([name, image]) => [name, image.fingerprint]));
  }
  if (lock === undefined) return undefined;
  // The lock only decides what to rebuild here; a host verifies its signature before trusting it.
  const parsed = parseLock(Buffer.from(await lock.contents()), await lock.name(), 'compose');
  const labelled = await Promise.all(
    names.map(async (name) => {
      const ref = parsed.images[imageVariable(name)];
      const fingerprint = ref === undefined ? '' : await dag.container().from(ref).label(LABEL_FINGERPRINT);
      return [name, fingerprint ?? ''] as const;
    }),
  );
  return new Map(labelled.filter(([, fingerprint]) => fingerprint !== ''));
}
