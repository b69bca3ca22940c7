import { DeliveryError } from './delivery-error.ts';
import type { DeliveryContext } from './delivery-context.ts';

export async function pushRefs(ctx: DeliveryContext, commit: string, refs: readonly string[]): Promise<void> {
  const remote = ctx.profile.git.push;
  const result = await ctx.git.run(['push', '--quiet', '--force', remote, ...refs.map((ref) => `${commit}:${ref}`)]);
  if (result.code !== 0) {
    throw new DeliveryError(
      'push-failed',
      `Cannot push ${commit.slice(0, 12)} to "${remote}": ${result.stderr.trim().split('\n').slice(-2).join(' / ')}`,
      { details: { remote } },
    );
  }
}
