import { describe, expect, it } from 'vitest';
import type { Exec, ExecOptions } from '../../../../scripts/lib/ports/exec.ts';
import { helmPort, READ_TIMEOUT_MS } from '../../../../scripts/lib/host/chart/helm-port.ts';

interface Call {
  readonly command: string;
  readonly args: readonly string[];
  readonly options: ExecOptions | undefined;
}

/** A recording Exec answering each call with the next scripted result. */
function recorder(...answers: { code?: number; stdout?: string; stderr?: string }[]): { exec: Exec; calls: Call[] } {
  const calls: Call[] = [];
  const exec: Exec = async (command, args, options) => {
    calls.push({ command, args, options });
    const a = answers.shift() ?? {};
    return { code: a.code ?? 0, stdout: Buffer.from(a.stdout ?? ''), stderr: a.stderr ?? '' };
  };
  return { exec, calls };
}

const settings = {
  binary: '/usr/local/bin/helm',
  release: 'hephaestus',
  namespace: 'prod',
  waitTimeoutSeconds: 1200,
  kubeconfig: '/etc/rancher/k3s/k3s.yaml',
};

describe('the Helm port', () => {
  it('runs upgrade --install with the documented arguments, values in the given order, and a deadline from the wait timeout', async () => {
    const { exec, calls } = recorder({});
    await helmPort(exec, settings).upgradeInstall(
      '/v/chart/hephaestus-1.2.3.tgz',
      ['/p/small.yaml', '/p/small-16gib.yaml', '/etc/hephaestus/chart.yaml', '/v/chart/v1.2.3.images.yaml'],
      { rollbackOnFailure: true },
    );
    expect(calls[0]?.command).toBe('/usr/local/bin/helm');
    expect(calls[0]?.args).toEqual([
      'upgrade',
      '--install',
      'hephaestus',
      '/v/chart/hephaestus-1.2.3.tgz',
      '--namespace',
      'prod',
      '--values',
      '/p/small.yaml',
      '--values',
      '/p/small-16gib.yaml',
      '--values',
      '/etc/hephaestus/chart.yaml',
      '--values',
      '/v/chart/v1.2.3.images.yaml',
      '--rollback-on-failure',
      '--wait=watcher',
      '--wait-for-jobs',
      '--timeout',
      '1200s',
    ]);
    expect(calls[0]?.options?.timeoutMs).toBe((2 * 1200 + 120) * 1000);
    expect(calls[0]?.options?.env?.KUBECONFIG).toBe('/etc/rancher/k3s/k3s.yaml');
  });

  it('a cutover upgrade sets one server and no worker and omits --rollback-on-failure', async () => {
    const { exec, calls } = recorder({});
    await helmPort(exec, settings).upgradeInstall('c', ['v'], {
      rollbackOnFailure: false,
      set: ['server.replicas=1', 'worker.replicas=0'],
    });
    expect(calls[0]?.args).toContain('--set');
    expect(calls[0]?.args.join(' ')).toContain('--set server.replicas=1 --set worker.replicas=0');
    expect(calls[0]?.args).not.toContain('--rollback-on-failure');
  });

  it('reads history and status within two minutes; an unknown release is undefined, other failures name the exit and stderr', async () => {
    const { exec, calls } = recorder(
      { code: 1, stderr: 'Error: release: not found\n' },
      {
        stdout: JSON.stringify([
          {
            revision: 2,
            status: 'deployed',
            chart: 'hephaestus-1.2.3',
            app_version: '1.2.3',
            description: 'Upgrade complete',
          },
          {
            revision: 1,
            status: 'superseded',
            chart: 'hephaestus-1.2.2',
            app_version: '1.2.2',
            description: 'Install complete',
          },
        ]),
      },
      { code: 1, stderr: 'Error: Kubernetes cluster unreachable\n' },
    );
    const helm = helmPort(exec, settings);
    expect(await helm.history()).toBeUndefined();
    expect((await helm.history())?.map((r) => r.revision)).toEqual([1, 2]);
    await expect(helm.status()).rejects.toThrow(
      /Cannot read the status of release "hephaestus": helm exited 1: Error: Kubernetes cluster unreachable/,
    );
    expect(calls.map((c) => c.options?.timeoutMs)).toEqual([READ_TIMEOUT_MS, READ_TIMEOUT_MS, READ_TIMEOUT_MS]);
  });

  it('refuses history output that is not what Helm writes, naming the field', async () => {
    const { exec } = recorder({ stdout: JSON.stringify([{ revision: 1, status: 'exploded', chart: 'x' }]) });
    await expect(helmPort(exec, settings).history()).rejects.toThrow(/status/);
  });

  it('pull returns the digest Helm reports, and fails when Helm reports none', async () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const { exec, calls } = recorder(
      { stdout: `Pulled: r/c@${digest}\nDigest: ${digest}\n` },
      { stdout: 'Pulled: r/c\n' },
    );
    const helm = helmPort(exec, settings);
    expect(await helm.pull(`oci://r/c@${digest}`, '/tmp/d')).toBe(digest);
    expect(calls[0]?.args).toEqual(['pull', `oci://r/c@${digest}`, '--destination', '/tmp/d']);
    await expect(helm.pull(`oci://r/c@${digest}`, '/tmp/d')).rejects.toThrow(/reported no "Digest: sha256:…" line/);
  });

  it('names the exact uninstall command for a release Helm never finished', () => {
    expect(helmPort(recorder().exec, settings).uninstallCommand).toBe(
      '/usr/local/bin/helm uninstall hephaestus --namespace prod',
    );
  });
});
