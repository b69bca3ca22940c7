import { describe, expect, it } from 'vitest';
import { deployResume } from '../../../scripts/lib/deploy/deploy-steps.ts';
import { parseRecap } from '../../../scripts/lib/deploy/deploy-ansible.ts';
import { parseTargetProfile } from '../../../scripts/lib/target/target-profile.ts';
import { normalizeEndpoint, hostConfigs } from '../../support/deploy/k3s-registries.ts';

const C1 = 'a'.repeat(40);
const entry = (run: string, step: string, extra: Record<string, unknown> = {}) => ({
  time: '2026-11-30T10:00:00Z',
  command: 'deploy',
  run,
  step,
  commit: C1,
  ...extra,
});

describe('deployResume() reads what a killed deploy completed', () => {
  const deploy = parseTargetProfile(
    'schema: 1\nkube: {}\ngit: {push: x, cluster: "git://x/p.git"}\nregistry: {host: "127.0.0.1:5000"}\nroot: {application: r}\nproject: p\ndeploy: {inventory: inv.ini}\n',
    '/a/targets/t.yaml',
    't',
  ).deploy!;
  const resumed = (run: string) => ({
    action: 'resume',
    summary: `already done by run ${run}`,
    fields: { commit: C1, settings: 's1', resumedFrom: run },
  });

  it('an unfinished run resumes every deploy step it journaled, with its commit and settings', () => {
    const resume = deployResume(
      [
        entry('r1', 'claim'),
        entry('r1', 'layer-host', { settings: 's1' }),
        entry('r1', 'layer-k3s', { settings: 's1' }),
      ],
      deploy,
      C1,
      's1',
    );
    expect(['layer-host', 'layer-k3s', 'layer-bootstrap', 'claim'].map((step) => resume.decide(step))).toEqual([
      resumed('r1'),
      resumed('r1'),
      { action: 'run' },
      { action: 'run' },
    ]);
    expect(
      deployResume([entry('r1', 'layer-host', { settings: 's1' })], deploy, C1, 's2').decide('layer-host'),
    ).toEqual({ action: 'run' });
  });

  it('a finished run (its last step is release) leaves nothing to resume', () => {
    const resume = deployResume(
      [entry('r1', 'layer-host', { settings: 's1' }), entry('r1', 'release')],
      deploy,
      C1,
      's1',
    );
    expect(resume.decide('layer-host')).toEqual({ action: 'run' });
  });

  it('only the last deploy run counts; reconcile entries in between are ignored', () => {
    const resume = deployResume(
      [
        entry('r1', 'layer-host', { settings: 's1' }),
        { ...entry('x', 'push'), command: 'reconcile' },
        entry('r2', 'claim'),
      ],
      deploy,
      C1,
      's1',
    );
    expect(resume.decide('layer-host')).toEqual({ action: 'run' });
  });

  it('a resumed step keeps naming the run that really did it', () => {
    const resume = deployResume([entry('r2', 'layer-host', { settings: 's1', resumedFrom: 'r1' })], deploy, C1, 's1');
    expect(resume.decide('layer-host')).toEqual(resumed('r1'));
  });
});

describe('parseRecap() reads ansible-playbook PLAY RECAP lines', () => {
  it('returns the counts per host', () => {
    const out =
      'PLAY [x]\n\nPLAY RECAP *****\nlocalhost : ok=3 changed=1 unreachable=0 failed=0 skipped=2 rescued=0 ignored=0\n';
    expect(parseRecap(out)).toEqual({
      localhost: { ok: 3, changed: 1, unreachable: 0, failed: 0, skipped: 2, rescued: 0, ignored: 0 },
    });
  });
  it('no recap (a run that did not finish) is no hosts; a recap line missing a count is an error quoting it', () => {
    expect(parseRecap('ERROR! the playbook could not be found')).toEqual({});
    expect(() => parseRecap('PLAY RECAP\nlocalhost : ok=3 changed=1\n')).toThrow(
      /recap line "localhost : ok=3 changed=1": unreachable, failed, skipped, rescued, ignored missing/,
    );
  });
});

describe('target profile deploy and runner sections', () => {
  const base =
    'schema: 1\nkube: {}\ngit: {push: x, cluster: "git://x/p.git"}\nregistry: {host: "127.0.0.1:5000"}\nroot: {application: r}\nproject: p\n';
  it('fills deploy defaults and resolves paths against the profile folder', () => {
    const profile = parseTargetProfile(
      `${base}deploy: {inventory: inv.ini, tokens: [{provider: gitlab, file: t/gitlab, namespace: pharos, secret: gitlab-token}]}\n`,
      '/a/targets/t.yaml',
      't',
    );
    expect(profile.deploy?.layers).toEqual(['host', 'k3s', 'bootstrap']);
    expect(profile.deploy?.inventory).toBe('/a/targets/inv.ini');
    expect(profile.deploy?.tokens[0]).toEqual({
      provider: 'gitlab',
      file: '/a/targets/t/gitlab',
      namespace: 'pharos',
      secret: 'gitlab-token',
      key: 'token',
    });
    expect(profile.deploy?.ttl).toBe(7_200_000);
  });
  it('names every bad deploy and runner field with its value', () => {
    const text = `${base}deploy: {inventory: i, layers: [k8s], vars: {Bad-Name: 1}}\nrunner: {host: "a b", user: pharos, toolkit: relative/path, port: 70000}\n`;
    expect(() => parseTargetProfile(text, '/t/dev.yaml', 'dev')).toThrow(
      /deploy\.layers\[0\]: [^\n]*\(value "k8s"\)[\s\S]*deploy\.vars\.Bad-Name[\s\S]*runner\.host: must be a host name[^\n]*\(value "a b"\)[\s\S]*runner\.port[\s\S]*runner\.toolkit: must be an absolute path/,
    );
  });
});

describe('k3s registries.yaml rules (the test port)', () => {
  it('gives schemeless endpoints https, except localhost on another port than 443, and normalises the path', () => {
    expect(normalizeEndpoint('10.43.0.50:5000').url).toBe('https://10.43.0.50:5000/v2');
    expect(normalizeEndpoint('localhost:5000').url).toBe('http://localhost:5000/v2');
    expect(normalizeEndpoint('http://10.43.0.50:5000/').url).toBe('http://10.43.0.50:5000/v2');
    expect(normalizeEndpoint('https://mirror.test/prefix').overridePath).toBe(true);
  });
  it('skips duplicate endpoints and refuses a mistyped endpoint list', () => {
    expect(
      hostConfigs('mirrors:\n  a.test:\n    endpoint: ["http://m:1", "http://m:1/v2"]\n')['a.test']?.endpoints,
    ).toHaveLength(1);
    expect(() => hostConfigs('mirrors:\n  a.test:\n    endpoint: http://m:1\n')).toThrow();
  });
});
