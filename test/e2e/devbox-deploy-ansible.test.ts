// The cluster layers' playbook with the real ansible-playbook: syntax, check mode and a real run against this
// machine (local connection; every path under a test folder), and the k3s role's registries mirror read as k3s reads it.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { ansiblePlaybook, ANSIBLE_DIR } from '../../scripts/lib/deploy/deploy-ansible.ts';
import { hostConfigs } from '../support/deploy/k3s-registries.ts';

const TOP = resolve(import.meta.dirname, '../..');
const HOST = 'registry.pharos-build.svc.cluster.local:5000';
let dir = '';
let inventory = '';
let root = '';
const layer = (name: string, check: boolean, vars: Record<string, unknown> = {}) =>
  ansiblePlaybook({
    layer: name,
    inventory,
    vars: { pharos_root: root, k3s_install: false, ...vars },
    check,
    timeoutMs: 300_000,
  });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pharos-ansible16-'));
  inventory = join(dir, 'inventory.ini');
  root = join(dir, 'root');
  await writeFile(
    inventory,
    '[devbox]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n',
  );
});
afterAll(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe('deploy/ansible with the real ansible-playbook', () => {
  it('the playbook passes --syntax-check', async () => {
    const result = await exec('ansible-playbook', ['-i', inventory, join(ANSIBLE_DIR, 'site.yml'), '--syntax-check'], {
      cwd: ANSIBLE_DIR,
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.toString('utf8')).toContain('playbook: ');
  });

  it('a layer still running at its deadline ends with its whole process group (no ansible process left behind)', async () => {
    const started = Date.now();
    const error = await ansiblePlaybook({
      layer: 'k3s',
      inventory,
      vars: { pharos_root: root, k3s_install: false },
      check: true,
      timeoutMs: 300,
    }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(String((error as Error).message)).toMatch(/no end within 300 ms; its process group was killed/);
    await new Promise((r) => setTimeout(r, 500));
    // No process of that run is left: none has the layer's inventory on its command line.
    const left = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          return (
            readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(inventory) &&
            !/ [ZX] /.test(readFileSync(`/proc/${d}/stat`, 'utf8'))
          );
        } catch {
          return false;
        }
      });
    expect(left).toEqual([]);
  });

  it('check mode reports what the k3s layer would change and writes nothing', async () => {
    const outcome = await layer('k3s', true);
    expect(outcome.hosts['localhost']?.failed).toBe(0);
    expect(outcome.hosts['localhost']?.changed).toBeGreaterThanOrEqual(3); // folder, config.yaml, registries.yaml
    await expect(stat(root)).rejects.toThrow(/ENOENT/);
  });

  it('the host and k3s layers write their files; a second run changes nothing', async () => {
    await layer('host', false);
    const first = await layer('k3s', false);
    expect(first.hosts['localhost']?.changed).toBeGreaterThan(0);
    const sysctl = await readFile(join(root, 'etc/sysctl.d/90-pharos-devbox.conf'), 'utf8');
    expect(sysctl).toMatch(/^fs\.inotify\.max_user_instances = 1024$/m);
    const config = parseYaml(await readFile(join(root, 'etc/rancher/k3s/config.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(config).toEqual({ 'write-kubeconfig-mode': '0600', disable: ['traefik'] });
    expect((await stat(join(root, 'etc/rancher/k3s/registries.yaml'))).mode & 0o777).toBe(0o600);
    const again = await layer('k3s', false);
    expect(again.hosts['localhost']?.changed).toBe(0);
  });

  it('k3s reads the mirror as: the in-cluster registry host, pulled over plain HTTP from the registry Service ClusterIP only', async () => {
    const hosts = hostConfigs(await readFile(join(root, 'etc/rancher/k3s/registries.yaml'), 'utf8'));
    expect(Object.keys(hosts)).toEqual([HOST]);
    const [endpoint, ...others] = hosts[HOST]?.endpoints ?? [];
    expect(others).toEqual([]);
    expect(endpoint).toEqual({ url: 'http://10.43.0.50:5000/v2', host: '10.43.0.50:5000', overridePath: false });
    // k3s's default service network: an address only the cluster network routes (no node port, no ingress).
    expect(endpoint?.host).toMatch(/^10\.43\.\d+\.\d+:5000$/);
    // The mirror and the Service agree: the ClusterIP and the port the Service exposes.
    const docs = parseAllDocuments(
      await readFile(join(TOP, 'gitops/manifests/pharos-build/registry.yaml'), 'utf8'),
    ).map((d) => d.toJS() as { kind: string; spec: { clusterIP?: string; ports?: { port: number }[] } });
    const service = docs.find((d) => d.kind === 'Service');
    expect(`${service?.spec.clusterIP}:${service?.spec.ports?.[0]?.port}`).toBe(endpoint?.host);
  });

  it('the mirror follows the profile registry host and a moved ClusterIP', async () => {
    await layer('k3s', false, {
      pharos_registry_host: 'registry.example.test:5001',
      pharos_registry_cluster_ip: '10.43.0.77',
      pharos_registry_port: 5001,
    });
    const hosts = hostConfigs(await readFile(join(root, 'etc/rancher/k3s/registries.yaml'), 'utf8'));
    expect(hosts['registry.example.test:5001']?.endpoints.map((e) => e.url)).toEqual(['http://10.43.0.77:5001/v2']);
  });

  it('the bootstrap layer leaves the rendered build namespace where k3s applies manifests', async () => {
    await layer('bootstrap', false);
    const text = await readFile(join(root, 'var/lib/rancher/k3s/server/manifests/pharos-build.yaml'), 'utf8');
    const kinds = parseAllDocuments(text).map(
      (d) => d.toJS() as { kind: string; metadata: { namespace?: string; name: string } },
    );
    expect(kinds.map((k) => `${k.kind}/${k.metadata.name}`)).toContain('Service/registry');
    expect(kinds.filter((k) => k.kind !== 'Namespace').every((k) => k.metadata.namespace === 'pharos-build')).toBe(
      true,
    );
  });

  it('a failing layer is an error naming the layer and the failed task', async () => {
    await expect(layer('bootstrap', false, { bootstrap_build_kustomization: join(dir, 'missing') })).rejects.toThrow(
      /Cannot apply cluster layer "bootstrap": ansible-playbook localhost: 1 failed, 0 unreachable: .*fatal:/,
    );
  });
});
