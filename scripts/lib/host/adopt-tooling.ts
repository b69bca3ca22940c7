import { lstat, readFile, readlink, realpath, rename, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ApplyError } from './apply-error.ts';
import { hostPaths } from './host-paths.ts';
import { targetName } from './retained-locks.ts';
import { appliedView } from './applied-record.ts';
import type { AppliedView } from './applied-record.ts';
import type { Step, TickContext } from './tick-context.ts';

/** A release carries a reconciler when these are regular files of its tree. */
export const RECONCILER_FILES = ['scripts/reconcile-deployment.ts', 'package.json', 'package-lock.json'] as const;
export const UNIT_FILES = ['hephaestus-reconcile.service', 'hephaestus-reconcile.timer'] as const;
/** Under HEPHAESTUS_ROOT while rewritten units wait for `systemctl daemon-reload`. */
export const RELOAD_PENDING_FILE = 'daemon-reload.pending';
const NPM_TIMEOUT_MS = 15 * 60 * 1000;

const isFile = (path: string) =>
  lstat(path).then(
    (s) => s.isFile(),
    () => false,
  );

export async function carriesReconciler(worktree: string): Promise<boolean> {
  for (const file of RECONCILER_FILES) if (!(await isFile(join(worktree, file)))) return false;
  return true;
}

/** Where `<root>/tooling` points now (resolved), or undefined when there is no link. */
export async function toolingTarget(root: string): Promise<string | undefined> {
  return readlink(join(root, 'tooling')).then(
    (t) => realpath(resolve(root, t)).catch(() => resolve(root, t)),
    () => undefined,
  );
}

/** The applied release's worktree, when it carries a reconciler the link does not point at yet. */
export async function pendingTooling(ctx: TickContext, name: string | undefined): Promise<string | undefined> {
  if (name === undefined) return undefined;
  const worktree = hostPaths.worktree(ctx.config.HEPHAESTUS_ROOT, name);
  if (!(await carriesReconciler(worktree))) return undefined;
  const real = await realpath(worktree).catch(() => worktree);
  return (await toolingTarget(ctx.config.HEPHAESTUS_ROOT)) === real ? undefined : worktree;
}

/** `hephaestus_deploy_tooling_pending`: a seed record without its commit cannot be completed from disk, and an applied reconciler not yet adopted waits too. */
export async function toolingPending(ctx: TickContext, applied: AppliedView | undefined): Promise<boolean> {
  if (applied === undefined) return false;
  if (applied.commit === undefined) return true;
  return (await pendingTooling(ctx, targetName(applied)).catch(() => undefined)) !== undefined;
}

/**
 * Adopts a verified, applied release's reconciler: its production dependencies (no install scripts), its unit files
 * copied where they differ and systemd reloaded, and only then the `tooling` link moved, atomically.
 */
async function adopt(
  ctx: TickContext,
  worktree: string,
): Promise<{ readonly units: readonly string[]; readonly retried: boolean }> {
  const { config, ports } = ctx;
  const npm = await ports
    .exec(config.HEPHAESTUS_NPM, ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: worktree,
      timeoutMs: NPM_TIMEOUT_MS,
    })
    .catch((cause: Error) => {
      throw new ApplyError('tooling', `Cannot adopt the tooling of "${worktree}": ${cause.message}`, { cause });
    });
  if (npm.code !== 0)
    throw new ApplyError(
      'tooling',
      `Cannot adopt the tooling of "${worktree}": npm ci exited ${npm.code}: ${npm.stderr.trim().split('\n').slice(-2).join(' / ')}`,
    );
  const changed: string[] = [];
  // Left by a tick that rewrote units but could not reload: the copies match now, systemd still runs the old ones.
  const marker = join(config.HEPHAESTUS_ROOT, RELOAD_PENDING_FILE);
  const retry = (await ports.fs.read(marker)) !== undefined;
  for (const unit of UNIT_FILES) {
    const source = join(worktree, 'deploy', 'reconcile', unit);
    if (!(await isFile(source))) continue;
    const wanted = await readFile(source);
    const installed = await ports.fs.read(join(config.HEPHAESTUS_SYSTEMD_DIR, unit));
    if (installed !== undefined && installed.equals(wanted)) continue;
    if (changed.length === 0) await ports.fs.writeAtomic(marker, `${unit}\n`, 0o600);
    await ports.fs.writeAtomic(join(config.HEPHAESTUS_SYSTEMD_DIR, unit), wanted, 0o644);
    changed.push(unit);
  }
  if (changed.length > 0 || retry) {
    const reload = await ports
      .exec(config.HEPHAESTUS_SYSTEMCTL, ['daemon-reload'])
      .catch((cause: Error) => ({ code: -1, stderr: cause.message }));
    if (reload.code !== 0)
      throw new ApplyError(
        'tooling',
        `Cannot reload systemd after rewriting ${changed.length === 0 ? 'the units' : changed.join(', ')}: ${reload.stderr.trim()}`,
      );
    await ports.fs.remove(marker);
  }
  const link = join(config.HEPHAESTUS_ROOT, 'tooling');
  const temp = `${link}.${randomBytes(4).toString('hex')}.tmp`;
  await symlink(worktree, temp);
  await rename(temp, link);
  return { units: changed, retried: retry };
}

function adoptedFields(name: string | undefined, units: readonly string[], retried: boolean) {
  return {
    adopted: name,
    units: units.length === 0 ? 'unchanged' : units.join(' '),
    ...(retried ? { reload: 'retried' } : {}),
  };
}

/** Step 2 (before any channel is read): a tick stopped between apply and adoption completes the adoption first. */
export const completeAdoption: Step = async (ctx, state) => {
  const name = state.applied === undefined ? undefined : targetName(appliedView(state.applied));
  const worktree = await pendingTooling(ctx, name);
  if (worktree === undefined) return { next: true, fields: { pending: 'none' } };
  const { units, retried } = await adopt(ctx, worktree);
  return { next: true, fields: adoptedFields(name, units, retried) };
};

/** Step 10, after record: the applied release's reconciler becomes the tooling (a release that carries none changes nothing). */
export const adoptTooling: Step = async (ctx, state) => {
  const name = state.target?.name;
  const worktree = await pendingTooling(ctx, name);
  if (worktree === undefined)
    return {
      next: true,
      fields: {
        tooling:
          name !== undefined && (await carriesReconciler(hostPaths.worktree(ctx.config.HEPHAESTUS_ROOT, name)))
            ? 'current'
            : 'release carries no reconciler',
      },
    };
  const { units, retried } = await adopt(ctx, worktree);
  return { next: true, fields: adoptedFields(name, units, retried) };
};
