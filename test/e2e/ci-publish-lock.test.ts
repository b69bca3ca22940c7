// scripts/ci.ts publish-lock against a real deploy-state repository: the release workflow's last step.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeScenario } from '../support/deploy-state.ts';
import type { Scenario } from '../support/deploy-state.ts';
import { runScript } from '../support/run-script.ts';

let s: Scenario;
let dir: string;

beforeAll(async () => {
  s = await makeScenario();
  dir = join(s.repo.root, 'locks-out');
  await mkdir(dir);
  await writeFile(join(dir, 'release-v1.2.0.json'), '{"schemaVersion":1}\n');
  await writeFile(join(dir, 'release-v1.2.0.json.sigstore.json'), '{"bundle":true}\n');
});
afterAll(async () => {
  await s.repo.cleanup();
});

const publish = (release: string) =>
  runScript('ci.ts', ['publish-lock', '--repo', s.repo.remote, '--release', release, '--dir', dir]);

describe('ci.ts publish-lock', () => {
  it('commits the lock and its bundle under locks/ on deploy-state, byte for byte', async () => {
    const result = publish('v1.2.0');
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      files: ['locks/release-v1.2.0.json', 'locks/release-v1.2.0.json.sigstore.json'],
    });
    expect((await s.show('locks/release-v1.2.0.json')).toString()).toBe('{"schemaVersion":1}\n');
    expect((await s.show('locks/release-v1.2.0.json.sigstore.json')).toString()).toBe('{"bundle":true}\n');
  });

  it('never replaces the lock of a release deploy-state already holds', async () => {
    const tip = (await s.repo.git(['rev-parse', 'refs/heads/deploy-state'], s.repo.remote)).trim();
    const again = publish('v1.2.0');
    expect([again.status, again.stderr]).toEqual([
      1,
      expect.stringMatching(/lock-exists.*already holds locks\/release-v1\.2\.0\.json/),
    ]);
    expect((await s.repo.git(['rev-parse', 'refs/heads/deploy-state'], s.repo.remote)).trim()).toBe(tip);
  });

  it('refuses a folder without the lock files, and a tag that is not vX.Y.Z', () => {
    const missing = publish('v1.1.0');
    expect([missing.status, missing.stderr]).toEqual([
      1,
      expect.stringMatching(/lock-files.*no release-v1\.1\.0\.json, release-v1\.1\.0\.json\.sigstore\.json/),
    ]);
    expect(publish('1.1').status).toBe(2);
  });
});
