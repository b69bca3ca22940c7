import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import {
  buildctlArgs,
  buildJobName,
  digestFromTerminationMessage,
  loadJobTemplate,
  renderBuildJob,
} from '../../../scripts/lib/delivery/build-job.ts';
import { parseTargetProfile } from '../../../scripts/lib/target/target-profile.ts';
import type { ImageEntry } from '../../../scripts/lib/catalogue/catalogue.ts';

const root = resolve(import.meta.dirname, '../../..');
const profile = parseTargetProfile(
  'schema: 1\nkube: {}\ngit: {push: /srv/git/platform.git, cluster: "git://git.example/platform.git"}\nregistry: {host: "reg.example:5000"}\nroot: {application: pharos-root}\nproject: pharos\nbuild: {jobTemplate: ../gitops/manifests/pharos-build/buildkit-job.yaml, limits: {cpu: "3", memory: 6Gi}}\n',
  resolve(root, 'targets/test.yaml'),
  'test',
);
const web: ImageEntry = {
  name: 'compat-web',
  image: 'pharos/compat-web',
  application: 'themelio-compat',
  context: 'apps/compat',
  dockerfile: 'apps/compat/Dockerfile',
  target: 'runtime',
  args: [
    ['APP', 'realtime-gateway'],
    ['FLAVOUR', 'web'],
  ],
  platform: 'linux/amd64',
  inputs: ['apps/compat'],
  exclude: [],
  takeover: undefined,
};
const commit = 'c'.repeat(40);

describe('buildctlArgs()', () => {
  it('builds from the delivered commit in the in-cluster Git server, bases from its registry, with no network', () => {
    expect(buildctlArgs(profile, { image: web, fingerprint: 'f'.repeat(64), commit, prefix: '' })).toEqual([
      'build',
      '--frontend',
      'dockerfile.v0',
      '--opt',
      `context=git://git.example/platform.git#${commit}:apps/compat`,
      '--opt',
      'filename=Dockerfile',
      '--opt',
      'target=runtime',
      '--opt',
      'build-arg:APP=realtime-gateway',
      '--opt',
      'build-arg:FLAVOUR=web',
      '--opt',
      'build-arg:BASE_REGISTRY=reg.example:5000',
      '--opt',
      'force-network-mode=none',
      '--opt',
      'platform=linux/amd64',
      '--output',
      'type=image,name=reg.example:5000/compat-web,push=true,registry.insecure=true',
      '--export-cache',
      'type=registry,ref=reg.example:5000/compat-web:buildcache,registry.insecure=true,mode=max',
      '--import-cache',
      'type=registry,ref=reg.example:5000/compat-web:buildcache,registry.insecure=true',
      '--metadata-file',
      '/dev/termination-log',
      '--progress',
      'plain',
    ]);
  });

  it('names the catalogue folder inside the repository and a context at its top', () => {
    const api = {
      ...web,
      name: 'api',
      context: '.',
      dockerfile: 'services/api/Dockerfile',
      target: undefined,
      args: [],
    };
    const args = buildctlArgs(profile, {
      image: api,
      fingerprint: 'f'.repeat(64),
      commit,
      prefix: 'examples/platform/',
    });
    expect(args).toContain(`context=git://git.example/platform.git#${commit}:examples/platform`);
    expect(args).toContain('filename=services/api/Dockerfile');
  });

  it('refuses a Dockerfile outside its context', () => {
    expect(() =>
      buildctlArgs(profile, {
        image: { ...web, dockerfile: 'other/Dockerfile' },
        fingerprint: 'f'.repeat(64),
        commit,
        prefix: '',
      }),
    ).toThrow(/outside its context/);
  });
});

describe('renderBuildJob()', () => {
  it('fills the shipped template: deterministic name, labels, the profile limits; BuildKit state per Job, no shared claim', async () => {
    const template = await loadJobTemplate(profile.jobTemplatePath);
    const job = renderBuildJob(template, profile, {
      image: web,
      fingerprint: 'f'.repeat(64),
      commit,
      prefix: '',
    }) as any;
    expect(job.metadata.name).toBe(buildJobName('compat-web', 'f'.repeat(64)));
    expect(job.metadata.namespace).toBe('pharos-build');
    expect(job.metadata.labels['pharos.dev/build']).toBe('true');
    expect(job.metadata.annotations['pharos.dev/commit']).toBe(commit);
    const container = job.spec.template.spec.containers[0];
    expect(container.resources).toEqual({ requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '3', memory: '6Gi' } });
    // Parallel Jobs on several nodes cannot share a ReadWriteOnce claim: the cache is in the registry instead.
    expect(job.spec.template.spec.volumes.find((v: any) => v.name === 'cache')).toEqual({
      name: 'cache',
      emptyDir: {},
    });
    expect(job.spec.template.spec.volumes.some((v: any) => v.persistentVolumeClaim !== undefined)).toBe(false);
    expect(template.spec.template.spec.containers[0]?.args).toEqual([]); // the template itself is not changed
  });
});

describe('digestFromTerminationMessage()', () => {
  it("reads buildctl's containerimage.digest and rejects anything else", () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(digestFromTerminationMessage(JSON.stringify({ 'containerimage.digest': digest }), 'job')).toBe(digest);
    expect(() => digestFromTerminationMessage('', 'build-x')).toThrow(/Job "build-x"/);
    expect(() => digestFromTerminationMessage('{"containerimage.digest":"latest"}', 'job')).toThrow(/digest/);
  });
});
