// promote.ts --verify-provenance against a real deploy-state repository: a commit whose images lack provenance from this
// repository's CI at that commit is refused before anything is signed; the right attestations let it through.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeScenario } from '../support/deploy-state.ts';
import type { Scenario } from '../support/deploy-state.ts';
import { provenanceBundle } from '../support/attestations.ts';
import type { AttestationSpec } from '../support/attestations.ts';
import { startMockSigstore } from '../support/mock-sigstore.ts';
import type { MockSigstore } from '../support/mock-sigstore.ts';
import { pinnedImages } from '../support/platform-repo.ts';

let s: Scenario;
let mock: MockSigstore;
let commit: string;
let imagesFile: string;
let trustedRoot: string;
const images = pinnedImages('prov');
const ENV = { GITHUB_REPOSITORY: 'acme/platform' };

beforeAll(async () => {
  s = await makeScenario();
  mock = await startMockSigstore();
  commit = s.commits[3] ?? '';
  imagesFile = join(s.repo.root, 'prov-images.json');
  await writeFile(imagesFile, JSON.stringify(images));
  trustedRoot = join(s.repo.root, 'trusted_root.json');
  await writeFile(trustedRoot, mock.trustedRoot);
});
afterAll(async () => {
  await mock.close();
  await s.repo.cleanup();
});

/** An attestations folder holding, for every image, one attestation made as `spec` says (spec's digest is filled in). */
async function attestationsDir(name: string, spec: Omit<AttestationSpec, 'digest'> | undefined): Promise<string> {
  const dir = join(s.repo.root, name);
  for (const ref of Object.values(images)) {
    const digest = ref.slice(ref.indexOf('@') + 1);
    await mkdir(join(dir, digest.replace(':', '-')), { recursive: true });
    if (spec !== undefined)
      await writeFile(
        join(dir, digest.replace(':', '-'), 'provenance.json'),
        await provenanceBundle(mock, { ...spec, digest }),
      );
  }
  return dir;
}

const tip = async () =>
  (
    await s.repo.git(['rev-parse', '--verify', '--quiet', 'refs/heads/deploy-state'], s.repo.remote).catch(() => '')
  ).trim();
const promote = (dir: string) =>
  s.promote(
    [
      '--env',
      'staging',
      '--commit',
      commit,
      '--images-file',
      imagesFile,
      '--key',
      s.key,
      '--verify-provenance',
      '--attestations-dir',
      dir,
      '--trusted-root',
      trustedRoot,
    ],
    ENV,
  );

describe('promote.ts --verify-provenance', () => {
  it.each([
    ['no attestation', undefined, /no provenance attestation/],
    [
      'another repository',
      { repository: 'mallory/platform', workflow: 'ci.yml' },
      /signed by "https:\/\/github\.com\/mallory\/platform/,
    ],
    ['another workflow', { repository: 'acme/platform', workflow: 'dev.yml' }, /dev\.yml@refs\/heads\/main", not by/],
    [
      'another commit',
      { repository: 'acme/platform', workflow: 'ci.yml', commit: 'f'.repeat(40) },
      /built at commit f{40}, not at/,
    ],
  ] as const)('refuses images with %s before anything is signed', async (name, spec, reason) => {
    const before = await tip();
    const dir = await attestationsDir(name.replaceAll(' ', '-'), spec === undefined ? undefined : { commit, ...spec });
    const refused = await promote(dir);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/\[provenance\]/)]);
    expect(refused.stderr).toMatch(reason);
    expect(refused.stderr).not.toMatch(/promote: sign /);
    expect(await tip()).toBe(before);
  });

  it("signs and pushes when every image has provenance from this repository's CI at the commit", async () => {
    const dir = await attestationsDir('right', { repository: 'acme/platform', workflow: 'ci.yml', commit });
    const promoted = await promote(dir);
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stderr).toMatch(/promote: provenance [\s\S]*promote: sign /);
    expect(JSON.parse(promoted.out)).toMatchObject({ action: 'write', target: { commit } });
  });
});
