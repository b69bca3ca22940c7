import type { Step } from '../delivery-context.ts';
import { DeliveryError } from '../delivery-error.ts';
import { pushRefs } from '../push-refs.ts';
import { rootInputs, rootInputsPatch } from '../root-inputs.ts';

/** Gives the root Application the commit and the image map; the root passes each digest to its child's `kustomize.images`. */
export const rootStep: Step = {
  name: 'root-inputs',
  async run(ctx, state) {
    const { argocd } = ctx.profile.namespaces;
    const name = ctx.profile.root.application;
    const root =
      (await state.applications?.catch(() => undefined))?.[0] ?? (await ctx.kube.get('Application', argocd, name));
    if (root === undefined)
      throw new DeliveryError(
        'sync-failed',
        `Cannot give inputs to the root Application "${argocd}/${name}": it does not exist`,
      );
    const patch = rootInputsPatch(
      root as { spec?: unknown },
      rootInputs(state.catalogue!, state.commit, state.images ?? {}, ctx.profile.git.cluster),
    );
    const { branch } = ctx.profile.git;
    if (patch === undefined) state.root = root;
    else {
      state.root = await ctx.kube.mergePatch('Application', argocd, name, patch);
      state.rootPatched = true;
    }
    // The delivery branch follows the root, also on a rerun after a crash between the two.
    await pushRefs(ctx, state.commit, [`refs/heads/${branch}`]);
    return {
      summary:
        patch === undefined
          ? `root inputs already current; ${branch} at ${state.commit.slice(0, 12)}`
          : `root ${name} targets ${state.commit.slice(0, 12)}; ${branch} moved to it`,
    };
  },
};
