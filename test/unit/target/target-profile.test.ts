import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { loadTargetProfile, parseTargetProfile } from '../../../scripts/lib/target/target-profile.ts';

const root = resolve(import.meta.dirname, '../../..');

describe('target profiles', () => {
  it('loads the sample local target with its defaults filled in', async () => {
    const profile = await loadTargetProfile(resolve(root, 'targets'), 'local');
    expect(profile.namespaces).toEqual({ argocd: 'argocd', build: 'pharos-build' });
    expect(profile.ownership).toBe('pharos-platform-ownership');
    expect(profile.build.parallel).toBe(1);
    expect(profile.build.timeout).toBe(30 * 60_000);
    expect(profile.jobTemplatePath).toBe(resolve(root, 'gitops/manifests/pharos-build/buildkit-job.yaml'));
  });

  it('names the file, field path and value of every bad field', () => {
    const text =
      'schema: 1\nkube: {}\ngit: {push: x, cluster: y}\nregistry: {host: "Bad Host"}\nroot: {application: pharos-root}\nproject: pharos\nbuild: {parallel: 0, timeout: soon}\n';
    expect(() => parseTargetProfile(text, '/t/dev.yaml', 'dev')).toThrow(
      /\/t\/dev\.yaml: registry\.host: must be a host[^\n]*\(value "Bad Host"\)\n\/t\/dev\.yaml: build\.parallel: [^\n]*\(value 0\)\n\/t\/dev\.yaml: build\.timeout: must be a duration[^\n]*\(value "soon"\)/,
    );
  });

  it('refuses an unknown target with the path it looked for', async () => {
    await expect(loadTargetProfile(resolve(root, 'targets'), 'nowhere')).rejects.toThrow(
      /no profile ".*targets\/nowhere\.yaml"/,
    );
  });

  it('resolves a relative git push path against the profile folder', () => {
    const text =
      'schema: 1\nkube: {}\ngit: {push: ../git/platform.git, cluster: "git://x/p.git"}\nregistry: {host: "127.0.0.1:5000"}\nroot: {application: r}\nproject: p\n';
    expect(parseTargetProfile(text, '/a/targets/t.yaml', 't').git.push).toBe('/a/git/platform.git');
  });

  it('refuses pharos-build as the delivery branch: the builds fetch from it before the delivery branch moves', () => {
    const text =
      'schema: 1\nkube: {}\ngit: {push: /g.git, cluster: "git://x/p.git", branch: pharos-build}\nregistry: {host: "127.0.0.1:5000"}\nroot: {application: r}\nproject: p\n';
    expect(() => parseTargetProfile(text, '/t/dev.yaml', 'dev')).toThrow(
      /\/t\/dev\.yaml: git\.branch: must not be "pharos-build"[^\n]*\(value "pharos-build"\)/,
    );
  });
});
