export { analyseDockerfile } from './analyse-dockerfile.ts';
export type {
  BuildOptions,
  ContextRead,
  DockerfileAnalysis,
  DockerfileProblem,
  ImageUse,
  RemoteSource,
} from './analyse-dockerfile.ts';
export { expandWord } from './expand-word.ts';
export type { VariableLookup } from './expand-word.ts';
export { platformArgs } from './platform-args.ts';
export { reachableStages } from './stage-graph.ts';
