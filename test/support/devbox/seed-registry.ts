// What `make deploy` does before any build: the bases the platform's catalogue names, from this machine's Docker
// into the registry that stands for the in-cluster one (the real library, the real Docker Engine and registry).
import { exec } from '../../../scripts/lib/ports/exec.ts';
import { loadCatalogue, openWorktreeSource } from '../../../scripts/lib/fingerprint/index.ts';
import { catalogueBases, seedBases } from '../../../scripts/lib/registry-seed/index.ts';
import type { SeededBase } from '../../../scripts/lib/registry-seed/index.ts';

export async function seedTestRegistry(repoDir: string, registry: string): Promise<SeededBase[]> {
  const source = await openWorktreeSource(repoDir);
  const bases = await catalogueBases(await loadCatalogue(source), (path) => source.readFile(path), registry);
  return seedBases({ run: exec, registry, push: registry, timeoutMs: 120_000 }, bases);
}
