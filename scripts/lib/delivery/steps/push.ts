import { BUILD_BRANCH } from '../../target/target-profile.ts';
import { applicationsOf } from '../delivery-applications.ts';
import type { Step } from '../delivery-context.ts';
import { pushRefs } from '../push-refs.ts';

/**
 * Pushes the commit to the in-cluster Git server: `refs/pharos/commits/<commit>` (earlier receipts stay fetchable)
 * and the build branch. The delivery branch moves only once the root targets the commit (root-inputs): a root the
 * bootstrap left following that branch would otherwise sync the commit before its images are built and pinned.
 */
export const push: Step = {
  name: 'push',
  async run(ctx, state) {
    const names = [ctx.profile.root.application, ...applicationsOf(state)];
    state.applications = Promise.all(
      names.map((name) => ctx.kube.get('Application', ctx.profile.namespaces.argocd, name)),
    );
    state.applications.catch(() => {}); // the steps that use it read again on failure
    await pushRefs(ctx, state.commit, [`refs/heads/${BUILD_BRANCH}`, `refs/pharos/commits/${state.commit}`]);
    return { summary: `pushed to ${ctx.profile.git.push} ${BUILD_BRANCH}` };
  },
};
