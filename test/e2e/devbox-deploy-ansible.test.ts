// The cluster layers' playbook with the real ansible-playbook: syntax, check mode and a real run against this
// machine (local connection; every path under a test folder), and the k3s role's registries mirror read as k3s reads it.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { ansiblePlaybook, ANSIBLE_DIR } from '../../scripts/lib/deploy/deploy-ansible.ts';
import { hostConfigs } from '../support/deploy/k3s-registries.ts';
import { startKubeApiServer } from '../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../support/kube-api-server/index.ts';
import { kubeFromConfig } from '../../scripts/lib/ports/kube.ts';
import type { Kube } from '../../scripts/lib/ports/kube.ts';

const TOP = resolve(import.meta.dirname, '../..');
const HOST = 'registry.pharos-build.svc.cluster.local:5000';
let dir = '';
let inventory = '';
// The empty cluster the bootstrap layer sets up: the test API server with no namespace.
let api: { server: KubeApiServer; kube: Kube; vars: Record<string, unknown> };
let root = '';
// ansible's tempfile module honours TMPDIR: this file's own, so a bootstrap another file runs at the same time is not seen.
let controllerTmp = '';
const savedTmpdir = process.env['TMPDIR'];
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
  controllerTmp = join(dir, 'tmp');
  await mkdir(controllerTmp);
  process.env['TMPDIR'] = controllerTmp;
  await writeFile(
    inventory,
    '[devbox]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n',
  );
  const server = await startKubeApiServer({ namespaces: [] });
  const kubeconfig = join(dir, 'kubeconfig');
  await server.writeKubeconfig(kubeconfig);
  api = {
    server,
    kube: kubeFromConfig(server.kubeConfig()),
    // --validate=false: the test server serves no OpenAPI documents (docs/test-cluster.md).
    vars: {
      bootstrap_kubeconfig: kubeconfig,
      bootstrap_validate: 'false',
      bootstrap_retries: 2,
      bootstrap_retry_delay: 1,
    },
  };
});
/** The namespaces as the real kubectl lists them (the Kube port serves namespaced kinds only). */
async function namespaces(): Promise<string[]> {
  const out = await exec('kubectl', ['--kubeconfig', join(dir, 'kubeconfig'), 'get', 'namespaces', '-o', 'name'], {
    timeoutMs: 30_000,
  });
  return out.stdout
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => l.replace('namespace/', ''))
    .filter((l) => l !== '')
    .sort();
}
afterAll(async () => {
  if (savedTmpdir === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = savedTmpdir;
  await api?.server.close();
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

  it('the bootstrap layer, on a cluster k3s just started: k3s manifests for Argo CD, the Git server, the build namespace and the fence; the namespaces, AppProjects and root Application through the API', async () => {
    const first = await layer('bootstrap', false, api.vars);
    expect(first.hosts['localhost']?.changed).toBeGreaterThan(0);
    const manifests = join(root, 'var/lib/rancher/k3s/server/manifests');
    const docs = async (file: string) =>
      parseAllDocuments(await readFile(join(manifests, file), 'utf8')).map(
        (d) => d.toJS() as { kind: string; metadata: { namespace?: string; name: string }; spec?: unknown },
      );
    const build = await docs('pharos-build.yaml');
    expect(build.map((k) => `${k.kind}/${k.metadata.name}`)).toContain('Service/registry');
    expect(build.filter((k) => k.kind !== 'Namespace').every((k) => k.metadata.namespace === 'pharos-build')).toBe(
      true,
    );
    // Argo CD as vendored: its three CRDs, its workloads in argocd, every Argo CD image at the pinned tag.
    const argocd = await docs('argocd.yaml');
    expect(
      argocd
        .filter((d) => d.kind === 'CustomResourceDefinition')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(['applications.argoproj.io', 'applicationsets.argoproj.io', 'appprojects.argoproj.io']);
    const text = await readFile(join(manifests, 'argocd.yaml'), 'utf8');
    expect(text.match(/image: quay\.io\/argoproj\/argocd:\S+/g)?.every((i) => i.endsWith(':v3.6.0'))).toBe(true);
    expect(argocd.find((d) => d.kind === 'StatefulSet')?.metadata).toMatchObject({
      name: 'argocd-application-controller',
      namespace: 'argocd',
    });
    expect((await docs('pharos-git.yaml')).map((d) => `${d.kind}/${d.metadata.name}`)).toEqual(
      expect.arrayContaining(['Namespace/pharos-git', 'Deployment/git', 'Service/git']),
    );
    expect((await docs('pharos-project-writer.yaml')).map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'ConfigMap/pharos-project-writer',
      'ValidatingAdmissionPolicy/pharos-project-writer',
      'ValidatingAdmissionPolicyBinding/pharos-project-writer',
    ]);
    // Through the API, as the bootstrap administrator: the namespaces, then the AppProjects, then the root.
    expect(await namespaces()).toEqual(
      ['argocd', 'default', 'kube-node-lease', 'kube-public', 'kube-system']
        .concat(['pharos', 'pharos-build', 'pharos-git', 'themelio-compat'])
        .sort(),
    );
    expect((await api.kube.list('AppProject', 'argocd')).map((p) => p.metadata.name).sort()).toEqual([
      'pharos',
      'pharos-root',
    ]);
    const rootApp = await api.kube.get('Application', 'argocd', 'pharos-root');
    expect(rootApp?.['spec']).toMatchObject({
      project: 'pharos-root',
      source: { path: 'gitops/root', targetRevision: 'devbox' },
    });
  });

  it('a bootstrap rerun changes nothing: no file, no object, not a takeover window nor the root inputs a delivery set', async () => {
    // What a takeover and a delivery wrote after the first bootstrap.
    const project = await api.kube.get('AppProject', 'argocd', 'pharos');
    const window = { kind: 'deny', schedule: '* * * * *', duration: '1h', applications: ['pharos'], manualSync: false };
    await api.kube.mergePatch('AppProject', 'argocd', 'pharos', { spec: { syncWindows: [window] } });
    await api.kube.mergePatch('Application', 'argocd', 'pharos-root', {
      spec: { source: { targetRevision: 'a'.repeat(40) } },
    });
    const before = await Promise.all([
      api.kube.list('AppProject', 'argocd'),
      api.kube.get('Application', 'argocd', 'pharos-root'),
      namespaces(),
    ]);
    const again = await layer('bootstrap', false, api.vars);
    expect(again.hosts['localhost']?.changed).toBe(0);
    expect(
      await Promise.all([
        api.kube.list('AppProject', 'argocd'),
        api.kube.get('Application', 'argocd', 'pharos-root'),
        namespaces(),
      ]),
    ).toEqual(before);
    expect(project?.metadata.resourceVersion).toBeDefined();
    const after = await api.kube.get('AppProject', 'argocd', 'pharos');
    expect((after?.['spec'] as { syncWindows: unknown[] }).syncWindows).toEqual([window]);
  });

  it('a failing layer is an error naming the layer and the failed task', async () => {
    await expect(layer('bootstrap', false, { bootstrap_build_kustomization: join(dir, 'missing') })).rejects.toThrow(
      /Cannot apply cluster layer "bootstrap": ansible-playbook localhost: 1 failed, 0 unreachable: .*failed: \[localhost\] \(item=pharos-build\)/,
    );
    // The controller's rendered manifests are removed even when the layer fails.
    expect(readdirSync(controllerTmp).filter((name) => name.endsWith('.pharos-bootstrap'))).toEqual([]);
  });
});
