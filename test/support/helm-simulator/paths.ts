// Where the Helm simulator's executable and the example platform's chart live.
import { join } from 'node:path';

export const HELM_SIMULATOR = join(import.meta.dirname, 'helm');
export const EXAMPLE_CHART = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'examples',
  'platform',
  'deploy',
  'chart',
  'hephaestus',
);
