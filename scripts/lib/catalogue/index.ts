export { CATALOGUE_PATH, findImage } from './catalogue.ts';
export type { Catalogue, ImageEntry } from './catalogue.ts';
export { CatalogueError } from './catalogue-error.ts';
export type { CatalogueErrorCode } from './catalogue-error.ts';
export { parseCatalogue, defaultOwned } from './parse-catalogue.ts';
export { catalogueFileSchema, imageEntrySchema, DEFAULT_EXCLUDE, IMAGE_NAME, ARG_KEY } from './catalogue-schema.ts';
export type { CatalogueFile, TakeoverSpec } from './catalogue-schema.ts';
export { repoPathProblem, normaliseRepoPath, isAtOrUnder } from './repo-path.ts';
export { normaliseRepository, isOwned } from './image-repository.ts';
