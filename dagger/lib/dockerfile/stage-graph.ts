interface StageNode {
  readonly name: string | undefined;
  readonly deps: ReadonlySet<string | number>;
}

/** Indices of the stages BuildKit builds for `target`: the target and every stage it uses, transitively. */
export function reachableStages(stages: readonly StageNode[], target: number): Set<number> {
  const seen = new Set<number>();
  const visit = (index: number): void => {
    if (index < 0 || index >= stages.length || seen.has(index)) return;
    seen.add(index);
    for (const dep of stages[index]?.deps ?? []) {
      // a name resolves to the latest stage so named before this one
      const resolved =
        typeof dep === 'number'
          ? dep
          : stages
              .slice(0, index)
              .map((s) => s.name)
              .lastIndexOf(dep);
      visit(resolved);
    }
  };
  visit(target);
  return seen;
}
