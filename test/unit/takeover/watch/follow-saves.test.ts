// The one save-following loop of `takeover start` and `takeover watch`, on a real working tree with the real fs.watch.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { followSaves } from '../../../../scripts/lib/takeover/watch/follow-saves.ts';
import type { Save, SaveFollower } from '../../../../scripts/lib/takeover/watch/follow-saves.ts';
import { tempRepo, type TempRepo } from '../../../support/temp-repo.ts';

const catalogue = `platform: linux/amd64
images:
  api: {image: pharos/api, application: pharos, context: ., dockerfile: services/api/Dockerfile, inputs: [services/api, contracts], takeover: {runtime: docker, port: 8080}}
  worker: {image: pharos/worker, application: pharos, context: ., dockerfile: services/worker/Dockerfile, inputs: [services/worker, contracts], takeover: {runtime: docker}}
  migrate: {image: pharos/migrate, application: pharos, context: ., dockerfile: services/worker/Dockerfile, target: migrate, inputs: [services/worker, contracts]}
`;

let repo: TempRepo;
let follower: SaveFollower | undefined;
beforeEach(() => {
  repo = tempRepo({
    'gitops/manifests/images.yaml': catalogue,
    'services/api/Dockerfile': 'FROM scratch\n',
    'services/api/serve.sh': 'echo ok\n',
    'services/worker/Dockerfile': 'FROM scratch\n',
    'services/worker/run.sh': 'echo work\n',
    'contracts/schema-version': '1\n',
  });
  repo.commit();
});
afterEach(async () => {
  await follower?.close();
  follower = undefined;
  repo.remove();
});

/** Follows saves and resolves each save in turn, as a callback sees them. */
async function follow(running: ReadonlySet<string>) {
  const saves: Save[] = [];
  const errors: Error[] = [];
  let next: ((save: Save) => void) | undefined;
  follower = await followSaves({
    checkout: repo.dir,
    running: () => running,
    onSave: (save) => {
      saves.push(save);
      next?.(save);
    },
    onError: (error) => errors.push(error),
    debounceMs: 50,
  });
  const saved = () => new Promise<Save>((resolve) => (next = resolve));
  return { saves, errors, saved };
}

describe('followSaves()', () => {
  it('a save in one service folder moves only that image: restart when it runs here, candidate when not', async () => {
    const { saved, errors } = await follow(new Set(['api']));
    let save = saved();
    repo.write({ 'services/api/serve.sh': 'echo edited\n' });
    expect(await save).toMatchObject({
      paths: ['services/api/serve.sh'],
      restart: ['api'],
      reconcile: [],
      candidates: [],
    });
    save = saved();
    repo.write({ 'services/worker/run.sh': 'echo edited\n' });
    expect(await save).toMatchObject({ restart: [], reconcile: ['migrate'], candidates: ['worker'] });
    expect(errors).toEqual([]);
  });

  it('compares with the last save, not the start: saving the same bytes again moves nothing', async () => {
    const { saved } = await follow(new Set(['api', 'worker']));
    let save = saved();
    repo.write({ 'contracts/schema-version': '2\n' });
    expect(await save).toMatchObject({ restart: ['api', 'worker'], reconcile: ['migrate'] });
    save = saved();
    repo.write({ 'contracts/schema-version': '2\n' });
    expect(await save).toMatchObject({ restart: [], reconcile: [], candidates: [] });
  });

  it('follows a file an editor saves by replacing it (a temporary renamed over it), at every save', async () => {
    const { saved } = await follow(new Set(['api']));
    const file = join(repo.dir, 'services/api/serve.sh');
    for (const text of ['echo one\n', 'echo two\n', 'echo three\n']) {
      const save = saved();
      writeFileSync(`${file}.tmp`, text);
      renameSync(`${file}.tmp`, file);
      expect(await save).toMatchObject({ paths: ['services/api/serve.sh'], restart: ['api'] });
    }
  });

  it('follows a folder created after it started, and the files saved in it', async () => {
    const { saved } = await follow(new Set(['api']));
    let save = saved();
    mkdirSync(join(repo.dir, 'services/api/src'));
    expect((await save).paths).toEqual(['services/api/src']);
    save = saved();
    writeFileSync(join(repo.dir, 'services/api/src/main.sh'), 'echo main\n');
    expect(await save).toMatchObject({ paths: ['services/api/src/main.sh'], restart: ['api'] });
  });

  it('gives the new fingerprints of what the save touched, for watch to compare with the receipt', async () => {
    const { saved } = await follow(new Set());
    const save = saved();
    repo.write({ 'services/api/serve.sh': 'echo edited\n' });
    const { after } = await save;
    expect([...after.keys()]).toEqual(['api']);
    expect(after.get('api')).toMatch(/\S/);
  });

  it('editor temporaries and .local/ never reach the callback', async () => {
    const { saves, saved } = await follow(new Set(['api']));
    repo.write({ 'services/api/.serve.sh.swp': 'x', '.local/metallo/t/journal.jsonl': '{}\n' });
    const save = saved();
    repo.write({ 'services/api/serve.sh': 'echo edited\n' });
    expect((await save).paths).toEqual(['services/api/serve.sh']);
    expect(saves).toHaveLength(1);
  });
});
