import type { Step } from '../delivery-context.ts';
import { writeAsHolder } from '../write-as-holder.ts';

/** `revision` and `images` in one compare-and-swap, only after every changed image is pushed. */
export const record: Step = {
  name: 'record',
  async run(ctx, state) {
    const images = state.images ?? {};
    const current = state.ownership?.records;
    if (current?.revision === state.commit && JSON.stringify(current.images ?? {}) === JSON.stringify(images)) {
      return { summary: 'ownership ConfigMap already records this commit' };
    }
    state.ownership = await writeAsHolder(ctx, state, { revision: state.commit, images });
    return { summary: `ownership ConfigMap records ${state.commit.slice(0, 12)}`, fields: { images } };
  },
};
