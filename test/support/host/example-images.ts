// Builds the example platform's host images (api, worker, migrate, postgres) on the local bases (busybox, PostgreSQL 15) and pushes them to a registry.
import { join } from 'node:path';
import { exec, execOk } from '../../../scripts/lib/ports/exec.ts';
import { ensureBaseImage } from '../../../scripts/lib/demo/base-image.ts';
import { ensurePostgresBaseImage } from '../../../scripts/lib/demo/postgres-base-image.ts';
import type { DemoRegistry } from '../../../scripts/lib/demo/local-registry.ts';
import { DEMO_IMAGES } from '../../../scripts/lib/demo/demo-platform.ts';

export const EXAMPLE_DIR = join(import.meta.dirname, '..', '..', '..', 'examples', 'platform');

/** The host's images of the example, as the demo builds them (one list: scripts/lib/demo/demo-platform.ts). */
export type ImageVariable = (typeof DEMO_IMAGES)[number]['variable'];

/**
 * Builds the images from `context` (the example platform, or a worktree of it) with a build label, so each build
 * has its own digest; pushes them; returns `HEPHAESTUS_IMAGE_*` -> `<registry>/<repository>@sha256:…`.
 */
export async function buildHostImages(
  registry: DemoRegistry,
  build: string,
  options: { context?: string; only?: readonly ImageVariable[] } = {},
): Promise<Record<string, string>> {
  await ensureBaseImage();
  await ensurePostgresBaseImage();
  const context = options.context ?? EXAMPLE_DIR;
  const out: Record<string, string> = {};
  const env = { ...process.env, DOCKER_BUILDKIT: '0' };
  for (const spec of DEMO_IMAGES) {
    const variable = spec.variable;
    if (options.only !== undefined && !options.only.includes(variable)) continue;
    const tag = `${registry.host}/${spec.repository}:${build}`;
    const args = [
      'build',
      '--quiet',
      '--force-rm',
      '--label',
      `pharos.build=${build}`,
      '--file',
      join(context, spec.dockerfile),
      '--tag',
      tag,
    ];
    if (spec.target !== undefined) args.push('--target', spec.target);
    await execOk(exec, 'docker', [...args, context], { env });
    await execOk(exec, 'docker', ['push', '--quiet', tag]);
    out[variable] = `${registry.host}/${spec.repository}@${await registry.digest(spec.repository, build)}`;
  }
  return out;
}

/** An image whose entrypoint only records an event and exits with `code` (a migration that fails, for instance). */
export async function buildFailingImage(
  registry: DemoRegistry,
  repository: string,
  tag: string,
  base: string,
  code: number,
): Promise<string> {
  const dockerfile = `FROM ${base}\nENTRYPOINT ["/bin/sh", "-c", "sh /app/entrypoint.sh --event fail; echo 'migration failed on purpose' >&2; exit ${code}"]\n`;
  const ref = `${registry.host}/${repository}:${tag}`;
  await execOk(exec, 'docker', ['build', '--quiet', '--force-rm', '--tag', ref, '-'], {
    env: { ...process.env, DOCKER_BUILDKIT: '0' },
    input: dockerfile,
  });
  await execOk(exec, 'docker', ['push', '--quiet', ref]);
  return `${registry.host}/${repository}@${await registry.digest(repository, tag)}`;
}
