import type { Step } from '../delivery-context.ts';
import { writeAsHolder } from '../write-as-holder.ts';

/** Clears the `delivery` record: the target is free again. */
export const release: Step = {
  name: 'release',
  async run(ctx, state) {
    state.ownership = await writeAsHolder(ctx, state, { delivery: null });
    state.claimed = false;
    return { summary: 'delivery record cleared' };
  },
};
