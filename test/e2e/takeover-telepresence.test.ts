// The Telepresence adapter against the Telepresence SIMULATOR (test/support/telepresence-simulator), not Telepresence,
// and the simulator's output held against the fixtures built from Telepresence 2.31's Go types.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  telepresenceReplacement,
  telepresenceVersion,
} from '../../scripts/lib/takeover/replacement/telepresence-replacement.ts';
import type { TelepresenceReplacement } from '../../scripts/lib/takeover/replacement/telepresence-replacement.ts';
import { BASE_IMAGE, ensureBaseImage } from '../support/base-image.ts';
import type { WorkloadReplacement } from '../../scripts/lib/ownership/workload-replacement.ts';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { telepresenceFixture } from '../support/contracts/telepresence/sources.ts';
import type { TelepresenceFixture } from '../support/contracts/telepresence/sources.ts';
import { startTelepresenceSimulator } from '../support/telepresence-simulator/index.ts';
import type { TelepresenceSimulator } from '../support/telepresence-simulator/index.ts';

let sim: TelepresenceSimulator;
let port: WorkloadReplacement;
const api = { kind: 'Deployment', namespace: 'pharos', name: 'api' } as const;
const tp = async (...args: string[]) => {
  const r = await exec(`${sim.bin}/telepresence`, args, { env: sim.env });
  return { code: r.code, out: r.stdout.toString('utf8'), err: r.stderr };
};

/** Every member path of a JSON value with the type found there (array items merged): what a parser can rely on. */
function shape(value: unknown, path = '', out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(value)) for (const v of value) shape(v, `${path}[]`, out);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) shape(v, path === '' ? k : `${path}.${k}`, out);
  else out.set(path, typeof value);
  return out;
}
const sameShape = (live: string, fixture: TelepresenceFixture) =>
  expect(Object.fromEntries(shape(JSON.parse(live)))).toEqual(
    Object.fromEntries(shape(JSON.parse(telepresenceFixture(fixture)))),
  );

beforeAll(async () => {
  sim = await startTelepresenceSimulator([{ namespace: 'pharos', workload: 'worker', port: 8080, listen: 0 }]);
  port = telepresenceReplacement({
    binary: `${sim.bin}/telepresence`,
    exec: (c, a, o) => exec(c, a, { ...o, env: sim.env }),
  });
});
afterAll(() => sim.stop());

describe('the Telepresence simulator speaks 2.31', () => {
  it('with no daemon: version and status print what Telepresence prints, and nothing is replaced', async () => {
    expect((await tp('version')).out).toBe(telepresenceFixture('version.txt'));
    expect((await tp('status', '--output', 'json')).out).toBe(telepresenceFixture('status-no-daemon.json'));
    expect(
      await telepresenceVersion(`${sim.bin}/telepresence`, (c, a, o) => exec(c, a, { ...o, env: sim.env })),
    ).toEqual([2, 31, 2]);
    expect(await port.find(['pharos'], 'lease-1')).toEqual([]);
  });

  it('list and status once connected and replacing: the shapes of the fixtures', async () => {
    await port.replace(api, 'lease-1', { localPort: 41000, remotePort: 8080, container: 'api' });
    sameShape((await tp('list', '--output', 'json')).out, 'list.json');
    sameShape((await tp('status', '--output', 'json')).out, 'status-connected.json');
    expect((await tp('list', '--output', 'json', '--namespace', 'other')).out).toBe(
      telepresenceFixture('list-empty.json'),
    );
  });

  it('detach finds the W/C attachment, not the workload; leave is a deprecated alias; --format is not modelled', async () => {
    const wrong = await tp('detach', 'api');
    expect(wrong.err).toBe(telepresenceFixture('detach-unknown.txt'));
    const old = await tp('leave', 'api', '--container', 'api');
    expect(old.code).toBe(0);
    expect(old.err).toBe('Command "leave" is deprecated, use "telepresence detach" instead\n');
    expect((await tp('status', '--format', 'json')).code).toBe(1);
    expect((await tp('uninstall', '--all-agents', '--namespace', 'pharos')).err).toBe(
      'telepresence uninstall: error: unknown flag: --namespace\n',
    );
  });
});

describe('telepresenceReplacement()', () => {
  it('connects to the namespace, replaces with --port local:remote --container, finds it, and detaches it', async () => {
    const replaced = await port.replace(api, 'lease-1', { localPort: 41000, remotePort: 8080, container: 'api' });
    expect(replaced).toEqual({ workload: api, lease: 'lease-1', via: 'telepresence', port: '41000:8080' });
    expect(sim.state().replaced['pharos/api']).toMatchObject({
      name: 'api/api',
      port: '41000:8080',
      address: '127.0.0.1',
      container: 'api',
    });
    // A second replace (a resumed start) with the same route changes nothing.
    const before = (await sim.calls()).filter((c) => c[0] === 'replace').length;
    await port.replace(api, 'lease-1', { localPort: 41000, remotePort: 8080, container: 'api' });
    expect((await sim.calls()).filter((c) => c[0] === 'replace')).toHaveLength(before);
    expect(await port.find(['pharos'], 'lease-1')).toEqual([{ workload: api, lease: 'lease-1', via: 'telepresence' }]);
    expect(await port.restore(replaced)).toBe(true);
    expect((await sim.calls()).at(-1)).toEqual(['detach', 'api/api']);
    expect(await port.restore(replaced)).toBe(false);
    expect(await port.agents!(['pharos'])).toEqual({ pharos: ['api'] });
  });

  it('refuses to switch namespaces while a replacement is active there (one connection, one namespace)', async () => {
    await port.replace(api, 'lease-1', { localPort: 41000, remotePort: 8080 });
    await expect(port.replace({ kind: 'Deployment', namespace: 'other', name: 'x' }, 'lease-1')).rejects.toThrow(
      /replaces "pharos\/api" in namespace "pharos"/,
    );
    await port.restore({ workload: api, lease: 'lease-1', via: 'telepresence' });
  });

  it('removes the namespace agents with uninstall --all-agents, then quits; the daemon stays, disconnected', async () => {
    expect(await port.removeAgents!('pharos')).toEqual(['api']);
    const calls = (await sim.calls()).slice(-2);
    expect(calls).toEqual([['uninstall', '--all-agents'], ['quit']]);
    expect(sim.state()).toEqual({ connected: null, replaced: {}, agents: {}, disrupted: [] });
    const status = (await tp('status', '--output', 'json')).out;
    sameShape(status, 'status-not-connected.json');
    expect(JSON.parse(status).user_daemon).toMatchObject({ running: true, status: 'Not connected' });
    expect(await port.find(['pharos'], 'lease-1')).toEqual([]);
  });

  it('the simulator: a namespace-scoped uninstall cuts off a replacement still active (what the queue prevents)', async () => {
    await port.replace(api, 'lease-2', { localPort: 41000, remotePort: 8080 });
    await port.replace({ ...api, name: 'worker' }, 'lease-2');
    await port.restore({ workload: { ...api, name: 'worker' }, lease: 'lease-2', via: 'telepresence' });
    await port.removeAgents!('pharos');
    expect(sim.state().disrupted).toEqual(['pharos/api']);
  });
});

describe("the simulator's Docker mode (connect --docker) with real Docker", () => {
  let dsim: TelepresenceSimulator;
  let dport: TelepresenceReplacement;
  const dtp = async (...args: string[]) => {
    const r = await exec(`${dsim.bin}/telepresence`, args, { env: dsim.env });
    return { code: r.code, out: r.stdout.toString('utf8'), err: r.stderr };
  };
  const inDaemonNetwork = (network: string, script: string) =>
    exec('docker', ['run', '--rm', '--network', network, BASE_IMAGE, 'sh', '-c', script], { timeoutMs: 60_000 });

  beforeAll(async () => {
    await ensureBaseImage();
    dsim = await startTelepresenceSimulator([], {
      docker: { services: [{ namespace: 'pharos', name: 'records', body: 'records served in the cluster' }] },
    });
    dport = telepresenceReplacement({
      binary: `${dsim.bin}/telepresence`,
      exec: (c, a, o) => exec(c, a, { ...o, env: dsim.env }),
    });
  }, 120_000);
  afterAll(() => dsim?.stop());

  it('runs the daemon as container tp-<context>-<namespace>-cn and names it in status (the fixture shape)', async () => {
    const network = await dport.dockerNetwork('pharos');
    expect(network).toBe(`container:tp-${dsim.docker!.context}-pharos-cn`);
    expect((await dsim.calls()).find((c) => c[0] === 'connect')).toEqual([
      'connect',
      '--namespace',
      'pharos',
      '--docker',
    ]);
    await dport.replace(api, 'lease-d', { localPort: 8080, remotePort: 8080, container: 'api' });
    sameShape((await dtp('status', '--output', 'json')).out, 'status-docker.json');
    // One connection: a host connection on top is refused (the real CLI would make a second one, needing --use).
    expect((await dtp('connect', '--namespace', 'pharos')).code).toBe(1);
  });

  it('a container on the daemon network resolves cluster Service names as a pod in the namespace does, and reaches them', async () => {
    const network = await dport.dockerNetwork('pharos');
    const got = await inDaemonNetwork(
      network,
      'for n in records records.pharos records.pharos.svc.cluster.local; do wget -q -O - "http://$n/"; done',
    );
    expect([got.code, got.stdout.toString('utf8')]).toEqual([0, 'records served in the cluster\n'.repeat(3)]);
    // A Service the cluster does not have resolves to nothing.
    expect((await inDaemonNetwork(network, 'wget -q -O - http://records.other/')).code).not.toBe(0);
  });

  it('quit ends the daemon container; Docker then refuses its network to a new container', async () => {
    const network = await dport.dockerNetwork('pharos');
    expect(await dport.removeAgents!('pharos')).toEqual(['api']);
    expect((await dsim.calls()).at(-1)).toEqual(['quit']);
    const refused = await inDaemonNetwork(network, 'true');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('No such container');
    expect(JSON.parse((await dtp('status', '--output', 'json')).out).user_daemon).toEqual({
      running: false,
      in_docker: false,
      daemon_port: 0,
    });
  });
});
