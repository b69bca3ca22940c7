// Telepresence 2.31's JSON, built from its Go types (test/support/contracts/telepresence/sources.ts), fed through the
// takeover's Telepresence port: what the real CLI prints is what the port reads. The simulator is held against the
// same fixtures (test/e2e/takeover-telepresence.test.ts).
import { describe, expect, it } from 'vitest';
import type { Exec } from '../../../../scripts/lib/ports/exec.ts';
import {
  telepresenceReplacement,
  telepresenceVersion,
} from '../../../../scripts/lib/takeover/replacement/telepresence-replacement.ts';
import { telepresenceFixture } from '../../../support/contracts/telepresence/sources.ts';
import type { TelepresenceFixture } from '../../../support/contracts/telepresence/sources.ts';

const api = { kind: 'Deployment', namespace: 'pharos', name: 'api' } as const;
type Answer = { fixture?: TelepresenceFixture; code?: number; stderr?: TelepresenceFixture };

/** A `telepresence` answering each subcommand from a fixture; every argv is recorded. */
function cli(answers: Record<string, Answer>): { exec: Exec; calls: string[][] } {
  const calls: string[][] = [];
  const exec: Exec = async (_binary, args) => {
    calls.push([...args]);
    const a = answers[args[0] ?? ''] ?? {};
    return {
      code: a.code ?? 0,
      stdout: Buffer.from(a.fixture === undefined ? '' : telepresenceFixture(a.fixture)),
      stderr: a.stderr === undefined ? '' : telepresenceFixture(a.stderr),
    };
  };
  return { exec, calls };
}

/** A `telepresence` whose `status` answers each fixture in turn (the last one again after that), `list` one fixture. */
function sequence(statuses: TelepresenceFixture[], list?: TelepresenceFixture): { exec: Exec; calls: string[][] } {
  const calls: string[][] = [];
  let next = 0;
  const exec: Exec = async (_binary, args) => {
    calls.push([...args]);
    const fixture =
      args[0] === 'status' ? statuses[Math.min(next++, statuses.length - 1)] : args[0] === 'list' ? list : undefined;
    return { code: 0, stdout: Buffer.from(fixture === undefined ? '' : telepresenceFixture(fixture)), stderr: '' };
  };
  return { exec, calls };
}

describe('the Telepresence port reads what Telepresence 2.31 prints', () => {
  it('status with no user daemon (every member zero, not absent): nothing is replaced, no agents, no list asked for', async () => {
    for (const fixture of ['status-no-daemon.json', 'status-not-connected.json'] as const) {
      const { exec, calls } = cli({ status: { fixture } });
      const port = telepresenceReplacement({ exec });
      expect(await port.find(['pharos'], 'l')).toEqual([]);
      expect(await port.agents!(['pharos'])).toEqual({});
      expect(await port.restore({ workload: api, lease: 'l', via: 'telepresence' })).toBe(false);
      expect(calls.map((c) => c[0])).toEqual(['status', 'status', 'status']);
    }
  });

  it('status with no daemon makes a replacement connect first, then replace with the container', async () => {
    const { exec, calls } = cli({ status: { fixture: 'status-no-daemon.json' }, list: { fixture: 'list-empty.json' } });
    await telepresenceReplacement({ exec }).replace(api, 'l', { localPort: 41000, remotePort: 8080, container: 'api' });
    expect(calls).toEqual([
      ['status', '--output', 'json'],
      ['connect', '--namespace', 'pharos'],
      ['list', '--output', 'json'],
      ['replace', 'api', '--address', '127.0.0.1', '--port', '41000:8080', '--container', 'api'],
    ]);
  });

  it('list: the {cmd, stdout} wrapper, intercept_info, the ACTIVE disposition as 1, agent_version', async () => {
    const { exec } = cli({ status: { fixture: 'status-connected.json' }, list: { fixture: 'list.json' } });
    const port = telepresenceReplacement({ exec });
    expect(await port.find(['pharos'], 'l')).toEqual([{ workload: api, lease: 'l', via: 'telepresence' }]);
    expect(await port.agents!(['pharos'])).toEqual({ pharos: ['api'] });
  });

  it('the attachment of `replace api --container api` is api/api: a resumed start keeps it, hand-back detaches that name', async () => {
    const { exec, calls } = cli({ status: { fixture: 'status-connected.json' }, list: { fixture: 'list.json' } });
    const port = telepresenceReplacement({ exec });
    await port.replace(api, 'l', { localPort: 41000, remotePort: 8080, container: 'api' });
    expect(calls.filter((c) => c[0] !== 'status' && c[0] !== 'list')).toEqual([]);
    expect(await port.restore({ workload: api, lease: 'l', via: 'telepresence' })).toBe(true);
    expect(calls.at(-1)).toEqual(['detach', 'api/api']);
  });

  it('a new route detaches the old attachment before replacing again', async () => {
    const { exec, calls } = cli({ status: { fixture: 'status-connected.json' }, list: { fixture: 'list.json' } });
    await telepresenceReplacement({ exec }).replace(api, 'l', { localPort: 42000, remotePort: 8080, container: 'api' });
    expect(calls.filter((c) => c[0] !== 'status' && c[0] !== 'list')).toEqual([
      ['detach', 'api/api'],
      ['replace', 'api', '--address', '127.0.0.1', '--port', '42000:8080', '--container', 'api'],
    ]);
  });

  it('a failure under --output json is the err member on stdout: the message says it', async () => {
    const { exec } = cli({
      status: { fixture: 'status-connected.json' },
      list: { fixture: 'list-error.json', code: 1 },
    });
    await expect(telepresenceReplacement({ exec }).find(['pharos'], 'l')).rejects.toThrow(
      'Cannot run "telepresence list --output json": exit 1: not connected',
    );
  });

  it('a failing detach reports the end of its stderr', async () => {
    const { exec } = cli({
      status: { fixture: 'status-connected.json' },
      list: { fixture: 'list.json' },
      detach: { code: 1, stderr: 'detach-unknown.txt' },
    });
    await expect(
      telepresenceReplacement({ exec }).restore({ workload: api, lease: 'l', via: 'telepresence' }),
    ).rejects.toThrow(
      'Cannot run "telepresence detach api/api": exit 1: telepresence detach: error: Found no replace, intercept, or ingest named "api"',
    );
  });

  it('Docker mode: with no daemon, connect --docker, then the daemon container as status names it (daemon.container_network)', async () => {
    const { exec, calls } = sequence(['status-no-daemon.json', 'status-docker.json']);
    expect(await telepresenceReplacement({ exec }).dockerNetwork('pharos')).toBe('container:tp-default-pharos-cn');
    expect(calls).toEqual([
      ['status', '--output', 'json'],
      ['connect', '--namespace', 'pharos', '--docker'],
      ['status', '--output', 'json'],
    ]);
  });

  it('Docker mode: the containerized daemon (member daemon, no user_daemon) serves find, agents and restore', async () => {
    const { exec, calls } = cli({ status: { fixture: 'status-docker.json' }, list: { fixture: 'list.json' } });
    const port = telepresenceReplacement({ exec });
    expect(await port.dockerNetwork('pharos')).toBe('container:tp-default-pharos-cn');
    expect(await port.find(['pharos'], 'l')).toEqual([{ workload: api, lease: 'l', via: 'telepresence' }]);
    expect(await port.agents!(['pharos'])).toEqual({ pharos: ['api'] });
    expect(await port.restore({ workload: api, lease: 'l', via: 'telepresence' })).toBe(true);
    expect(calls.filter((c) => c[0] === 'connect')).toEqual([]);
  });

  it('Docker mode over a host connection: quit it when it replaces nothing there, refuse when it does', async () => {
    const idle = sequence(['status-connected.json', 'status-docker.json'], 'list-empty.json');
    await telepresenceReplacement({ exec: idle.exec }).dockerNetwork('pharos');
    expect(idle.calls.map((c) => c.join(' '))).toEqual([
      'status --output json',
      'list --output json',
      'quit',
      'connect --namespace pharos --docker',
      'status --output json',
    ]);
    const busy = sequence(['status-connected.json'], 'list.json');
    await expect(telepresenceReplacement({ exec: busy.exec }).dockerNetwork('pharos')).rejects.toThrow(
      'Cannot connect Telepresence to namespace "pharos" in Docker mode: it replaces "pharos/api" in namespace "pharos" from a daemon on the host',
    );
  });

  it('version: the client line', async () => {
    expect(await telepresenceVersion('telepresence', cli({ version: { fixture: 'version.txt' } }).exec)).toEqual([
      2, 31, 2,
    ]);
  });
});
