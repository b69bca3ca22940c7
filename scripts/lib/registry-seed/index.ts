export { BASE_REGISTRY_ARG, catalogueBases } from './catalogue-bases.ts';
export type { BaseImage } from './catalogue-bases.ts';
export { referenceDigest, splitReference } from './image-reference.ts';
export type { ImageReference } from './image-reference.ts';
export { seedBases } from './seed-bases.ts';
export type { SeedOptions, SeededBase } from './seed-bases.ts';
export { SeedError } from './seed-error.ts';
