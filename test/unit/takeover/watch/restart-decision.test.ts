import { describe, expect, it } from 'vitest';
import { parseCatalogue } from '../../../../scripts/lib/catalogue/parse-catalogue.ts';
import {
  decideRestarts,
  imagesTouching,
  isIgnoredPath,
} from '../../../../scripts/lib/takeover/watch/restart-decision.ts';

const catalogue = parseCatalogue(
  `platform: linux/amd64
images:
  api: {image: pharos/api, application: pharos, context: ., dockerfile: services/api/Dockerfile, inputs: [services/api, contracts], takeover: {runtime: docker, port: 8080}}
  worker: {image: pharos/worker, application: pharos, context: ., dockerfile: services/worker/Dockerfile, inputs: [services/worker, contracts], takeover: {runtime: docker}}
  migrate: {image: pharos/migrate, application: pharos, context: ., dockerfile: services/worker/Dockerfile, target: migrate, inputs: [services/worker, contracts]}
  web: {image: pharos/web, application: web, context: web, dockerfile: web/Dockerfile, inputs: [web], takeover: {runtime: native, command: [sh, run.sh]}}
`,
  'gitops/manifests/images.yaml',
);
const names = (paths: string[]) => imagesTouching(catalogue, paths, 'gitops/manifests/images.yaml').map((i) => i.name);

describe('isIgnoredPath()', () => {
  it.each([
    '.local/metallo/dev/journal.jsonl',
    '.git/index',
    'services/api/.serve.sh.swp',
    'services/api/.serve.sh.swx',
    'services/api/4913',
    'services/api/serve.sh~',
    'services/api/.#serve.sh',
    'services/api/#serve.sh#',
    'services/api/serve.sh___jb_tmp___',
    'notes.kate-swp',
    'x/.goutputstream-AB12',
  ])('ignores %s', (path) => {
    expect(isIgnoredPath(path)).toBe(true);
  });
  it.each(['services/api/serve.sh', 'contracts/api.json', '.dockerignore', 'local/x', 'docs/4913.md'])(
    'follows %s',
    (path) => {
      expect(isIgnoredPath(path)).toBe(false);
    },
  );
});

describe('imagesTouching()', () => {
  it('a save in contracts/ touches exactly the images whose inputs hold it', () => {
    expect(names(['contracts/api.json'])).toEqual(['api', 'migrate', 'worker']);
  });
  it("a save in one service's folder touches only its images; a Dockerfile counts; a prefix is not a folder", () => {
    expect(names(['services/api/src/serve.sh'])).toEqual(['api']);
    expect(names(['services/worker/Dockerfile'])).toEqual(['migrate', 'worker']);
    expect(names(['services/api-old/x', 'contractsX/y'])).toEqual([]);
  });
  it('the catalogue itself touches every image', () => {
    expect(names(['gitops/manifests/images.yaml'])).toHaveLength(4);
  });
});

describe('decideRestarts()', () => {
  const before = new Map([
    ['api', 'a1'],
    ['worker', 'w1'],
    ['migrate', 'm1'],
    ['web', 'x1'],
  ]);
  it('restarts what runs here and moved, reports an image without runtime as needing make reconcile', () => {
    const after = new Map([
      ['api', 'a2'],
      ['worker', 'w2'],
      ['migrate', 'm2'],
    ]);
    expect(decideRestarts(catalogue, before, after, new Set(['api', 'worker']))).toEqual({
      restart: ['api', 'worker'],
      reconcile: ['migrate'],
      candidates: [],
    });
  });
  it('does nothing for an image whose fingerprint did not move (a save that restores the content)', () => {
    expect(decideRestarts(catalogue, before, new Map([['api', 'a1']]), new Set(['api']))).toEqual({
      restart: [],
      reconcile: [],
      candidates: [],
    });
  });
  it('names a moved image with a runtime that this session does not run as a candidate, never restarting it', () => {
    expect(decideRestarts(catalogue, before, new Map([['web', 'x2']]), new Set(['api']))).toEqual({
      restart: [],
      reconcile: [],
      candidates: ['web'],
    });
  });
});
