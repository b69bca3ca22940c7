import { afterEach, describe, expect, it } from 'vitest';
import { deploy } from '../../../scripts/lib/deploy/deploy.ts';
import type { Ansible } from '../../../scripts/lib/deploy/deploy-ansible.ts';
import { lazyKube } from '../../../scripts/lib/deploy/lazy-kube.ts';
import type { Kube } from '../../../scripts/lib/ports/kube.ts';
import { readJournal } from '../../../scripts/lib/steps/jsonl-journal.ts';
import { parseTargetProfile } from '../../../scripts/lib/target/target-profile.ts';
import { catalogueYaml, tempRepo } from '../../support/temp-repo.ts';
import type { TempRepo } from '../../support/temp-repo.ts';
import { join } from 'node:path';

const PROFILE =
  'schema: 1\nkube: {}\ngit: {push: x, cluster: "git://x/p.git"}\nregistry: {host: "127.0.0.1:5000"}\nroot: {application: r}\nproject: p\ndeploy: {inventory: inv.ini}\n';

let repo: TempRepo | undefined;
afterEach(() => repo?.remove());

describe('make deploy on a box with no cluster yet', () => {
  it('runs every layer before anything reads the cluster, and loads the kubeconfig only then', async () => {
    repo = tempRepo({
      'gitops/manifests/images.yaml': catalogueYaml({
        a: { image: 'x/a', application: 'app', context: '.', dockerfile: 'Dockerfile', inputs: ['Dockerfile'] },
      }),
      Dockerfile: 'FROM scratch\n',
    });
    repo.commit();
    const events: string[] = [];
    const ansible: Ansible = async (run) => {
      events.push(`layer ${run.layer}`);
      return {
        hosts: { localhost: { ok: 1, changed: 0, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 } },
      };
    };
    // The kubeconfig k3s has not written yet: loading it before the layers would fail the deploy.
    const kube = lazyKube(() => {
      events.push('kubeconfig loaded');
      return new Proxy({} as Kube, {
        get: (_t, method) => () => {
          events.push(`kube ${String(method)}`);
          return Promise.reject(new Error('API server unreachable'));
        },
      });
    });
    const profile = parseTargetProfile(PROFILE, join(repo.dir, 'targets/t.yaml'), 't');
    await expect(deploy({ profile, kube, checkout: repo.dir, ansible, log: () => {} })).rejects.toThrow(
      /API server unreachable/,
    );
    expect(events.slice(0, 4)).toEqual(['layer host', 'layer k3s', 'layer bootstrap', 'kubeconfig loaded']);
    const journal = await readJournal(join(repo.dir, '.local/metallo/t/journal.jsonl'));
    // Nothing was claimed, so there is no record to clear; a rerun resumes the layers this commit completed.
    expect(journal.map((e) => e.step)).toEqual(['layer-host', 'layer-k3s', 'layer-bootstrap']);
  });

  it('lazyKube loads nothing until a method is called, then once', () => {
    let loads = 0;
    const kube = lazyKube(() => {
      loads++;
      return { get: () => Promise.resolve(undefined) } as unknown as Kube;
    });
    expect(loads).toBe(0);
    void kube.get('ConfigMap', 'n', 'c');
    void kube.get('ConfigMap', 'n', 'c');
    expect(loads).toBe(1);
  });
});
