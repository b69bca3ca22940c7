// Takeover through the library in this process (racing acquires, outages, clock jumps), on the test target's clock.
import { readReceipt } from '../../../scripts/lib/target/receipt.ts';
import type { Receipt } from '../../../scripts/lib/target/receipt.ts';
import type { Catalogue } from '../../../scripts/lib/catalogue/catalogue.ts';
import {
  handBack,
  makeTakeoverContext,
  planTakeover,
  resolveWorkloads,
  RUNTIMES,
  startSession,
  stateFor,
} from '../../../scripts/lib/takeover/index.ts';
import type { Session, TakeoverContext, TakeoverOptions } from '../../../scripts/lib/takeover/index.ts';
import type { TestTarget } from './test-target.ts';

export interface InProcess {
  readonly ctx: TakeoverContext;
  readonly receipt: Receipt;
  readonly catalogue: Catalogue;
  start(images?: readonly string[]): Promise<Session>;
  release(): Promise<void>;
}

export async function inProcess(
  t: TestTarget,
  checkout = t.repo.dir,
  options: Partial<TakeoverOptions> = {},
): Promise<InProcess> {
  const lines: string[] = [];
  const ctx = await makeTakeoverContext({
    profile: t.profile,
    kube: t.kube,
    checkout,
    clock: t.clock,
    log: (line) => lines.push(line),
    pollMs: 20,
    ...options,
  });
  const receipt = (await readReceipt(ctx.paths.receipt)) ?? t.receipt;
  const { catalogue } = await planTakeover({ checkout, receipt, runtimes: Object.keys(RUNTIMES) });
  return {
    ctx,
    receipt,
    catalogue,
    async start(images = ['compat-web']) {
      return startSession(
        ctx,
        receipt,
        catalogue,
        await resolveWorkloads(ctx.kube, 'argocd', catalogue, receipt, images),
      );
    },
    async release() {
      const lease = await t.lease();
      if (lease !== undefined) await handBack(ctx, stateFor(lease as never));
    },
  };
}
