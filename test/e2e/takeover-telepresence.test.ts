// The Telepresence adapter against the Telepresence SIMULATOR (test/support/telepresence-simulator), not Telepresence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { telepresenceReplacement } from '../../scripts/lib/takeover/telepresence-replacement.ts';
import type { WorkloadReplacement } from '../../scripts/lib/takeover/workload-replacement.ts';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { startTelepresenceSimulator } from '../support/telepresence-simulator/index.ts';
import type { TelepresenceSimulator } from '../support/telepresence-simulator/index.ts';

let sim: TelepresenceSimulator;
let port: WorkloadReplacement;
const api = { kind: 'Deployment', namespace: 'pharos', name: 'api' } as const;

beforeAll(async () => {
  sim = await startTelepresenceSimulator([]);
  port = telepresenceReplacement({
    binary: `${sim.bin}/telepresence`,
    exec: (c, a, o) => exec(c, a, { ...o, env: sim.env }),
  });
});
afterAll(() => sim.stop());

describe('telepresenceReplacement()', () => {
  it('connects to the namespace, replaces with --port local:remote, finds it, and leaves it', async () => {
    const replaced = await port.replace(api, 'lease-1', { localPort: 41000, remotePort: 8080, container: 'api' });
    expect(replaced).toEqual({ workload: api, lease: 'lease-1', via: 'telepresence', port: '41000:8080' });
    expect(sim.state().replaced['pharos/api']).toMatchObject({
      port: '41000:8080',
      address: '127.0.0.1',
      container: 'api',
    });
    // A second replace (a resumed start) with the same route changes nothing.
    await port.replace(api, 'lease-1', { localPort: 41000, remotePort: 8080 });
    expect((await sim.calls()).filter((c) => c[0] === 'replace')).toHaveLength(1);
    expect(await port.find(['pharos'], 'lease-1')).toEqual([{ workload: api, lease: 'lease-1', via: 'telepresence' }]);
    expect(await port.restore(replaced)).toBe(true);
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

  it('removes the namespace agents with uninstall --all-agents, then quits', async () => {
    expect(await port.removeAgents!('pharos')).toEqual(['api']);
    const calls = (await sim.calls()).slice(-2);
    expect(calls).toEqual([['uninstall', '--all-agents'], ['quit']]);
    expect(sim.state()).toEqual({ connected: null, replaced: {}, agents: {}, disrupted: [] });
  });

  it('the simulator: a namespace-scoped uninstall cuts off a replacement still active (what the queue prevents)', async () => {
    await port.replace(api, 'lease-2', { localPort: 41000, remotePort: 8080 });
    await port.replace({ ...api, name: 'worker' }, 'lease-2');
    await port.restore({ workload: { ...api, name: 'worker' }, lease: 'lease-2', via: 'telepresence' });
    await port.removeAgents!('pharos');
    expect(sim.state().disrupted).toEqual(['pharos/api']);
  });
});
