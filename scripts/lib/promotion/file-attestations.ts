import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readFileBounded } from '../signing/read-bounded.ts';
import type { AttestationSource } from './attestation-source.ts';

/** Attestations kept as files, `<dir>/sha256-<hex>/*.json` one bundle each (air-gapped sites, and the e2e tests). */
export function fileAttestations(dir: string): AttestationSource {
  return {
    attestationsFor: async (digest) => {
      const folder = join(dir, digest.replace(':', '-'));
      const names = await readdir(folder).catch(() => [] as string[]);
      return Promise.all(
        names
          .filter((n) => n.endsWith('.json'))
          .sort()
          .map((n) => readFileBounded(join(folder, n))),
      );
    },
  };
}
