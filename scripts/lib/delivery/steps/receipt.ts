import { rfc3339 } from '../../ownership/record-time.ts';
import { readReceipt, writeReceipt } from '../../target/receipt.ts';
import type { Step } from '../delivery-context.ts';

/** The local cache of the receipt, written atomically (kept as it is when it already says the same). */
export const receipt: Step = {
  name: 'receipt',
  async run(ctx, state) {
    const images = Object.fromEntries(
      (state.plan ?? [])
        .filter((p) => state.images?.[p.name] !== undefined)
        .map((p) => [p.name, { fingerprint: p.fingerprint, reference: state.images?.[p.name] ?? '' }]),
    );
    const current = await (state.prefetch?.receipt ?? readReceipt(ctx.paths.receipt)).catch(() => undefined);
    if (current?.commit === state.commit && JSON.stringify(current.images) === JSON.stringify(images)) {
      return { summary: `receipt of ${state.commit.slice(0, 12)} already current (delivered ${current.delivered})` };
    }
    await writeReceipt(ctx.paths.receipt, {
      schema: 1,
      commit: state.commit,
      delivered: rfc3339(ctx.clock.now()),
      images,
    });
    return { summary: `receipt written to ${ctx.paths.receipt}` };
  },
};
