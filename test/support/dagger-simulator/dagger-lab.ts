// What every Dagger suite starts from: the base image, the engine simulator and a fresh checkout of the example platform.
import { ensureBaseImage } from '../base-image.ts';
import { makePlatformRepo } from '../devbox/platform-repo.ts';
import type { PlatformRepo } from '../devbox/platform-repo.ts';
import { GIT_IMAGE } from '../../../dagger/src/git-in-container.ts';
import { ensureGitImage } from './rootfs-image.ts';
import { startDaggerSimulator } from './dagger-simulator.ts';
import type { DaggerSimulator } from './dagger-simulator.ts';

export interface DaggerLab {
  readonly sim: DaggerSimulator;
  readonly repo: PlatformRepo;
  stop(): Promise<void>;
}

export async function startDaggerLab(): Promise<DaggerLab> {
  await Promise.all([ensureBaseImage(), ensureGitImage(GIT_IMAGE)]);
  const [sim, repo] = await Promise.all([startDaggerSimulator(), makePlatformRepo()]);
  return {
    sim,
    repo,
    async stop() {
      await sim.stop();
      await repo.remove();
    },
  };
}
