import { gitPrefix } from '../../fingerprint/git-tree-source.ts';
import type { ImageMap } from '../../ownership/ownership-records.ts';
import type { Step } from '../delivery-context.ts';
import { runBuildJob } from '../run-build-job.ts';
import { runPool } from '../run-pool.ts';

/** One BuildKit Job per changed image, `parallel` at a time; any failure stops the delivery before anything is recorded. */
export const build: Step = {
  name: 'build',
  async run(ctx, state) {
    const plan = state.plan ?? [];
    const catalogue = state.catalogue;
    if (catalogue === undefined) throw new Error('build runs after fingerprint');
    const todo = plan.filter((p) => p.build);
    const template = todo.length > 0 ? await ctx.template() : undefined;
    if (todo.length > 0) state.prefix ??= await gitPrefix(ctx.git);
    const references = await runPool(todo, ctx.parallel, async (item) => {
      const image = catalogue.images.find((entry) => entry.name === item.name);
      if (image === undefined) throw new Error(`image ${item.name} left the catalogue`);
      const reference = await runBuildJob(
        {
          kube: ctx.kube,
          profile: ctx.profile,
          template: template!,
          clock: ctx.clock,
          progress: ctx.progress,
          pollMs: ctx.pollMs,
        },
        { image, fingerprint: item.fingerprint, commit: state.commit, prefix: state.prefix ?? '' },
      );
      ctx.log(`build ${item.name}: pushed ${reference}`);
      return [item.name, reference] as const;
    });
    const built = Object.fromEntries(references);
    const images: ImageMap = {};
    for (const item of plan) {
      const reference = built[item.name] ?? item.reference;
      if (reference !== undefined) images[item.name] = reference;
    }
    state.images = images;
    return {
      summary: todo.length === 0 ? 'nothing built' : `built ${todo.length}: ${todo.map((t) => t.name).join(', ')}`,
      fields: { built },
    };
  },
};
