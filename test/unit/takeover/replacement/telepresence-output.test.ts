import { describe, expect, it } from 'vitest';
import type { Exec } from '../../../../scripts/lib/ports/exec.ts';
import { telepresenceReplacement } from '../../../../scripts/lib/takeover/replacement/telepresence-replacement.ts';
import {
  daemonContainer,
  daemonOf,
  parseTelepresence,
  statusSchema,
} from '../../../../scripts/lib/takeover/replacement/telepresence-output.ts';

const api = { kind: 'Deployment', namespace: 'pharos', name: 'api' } as const;
/** A `telepresence` that answers each subcommand with a canned stdout and exit code. */
const fake =
  (answers: Record<string, [number, string, string?]>): Exec =>
  async (_cmd, args) => {
    const [code, stdout, stderr] = answers[args[0] ?? ''] ?? [0, ''];
    return { code, stdout: Buffer.from(stdout), stderr: stderr ?? '' };
  };

describe('telepresenceReplacement() reading the CLI', () => {
  it('refuses status output that is not JSON, quoting it', async () => {
    const port = telepresenceReplacement({ exec: fake({ status: [0, 'User Daemon: Running'] }) });
    await expect(port.replace(api, 'l')).rejects.toThrow(
      /Cannot read "telepresence status --output json": its output is not JSON: "User Daemon: Running"/,
    );
  });
  it('names the field of list output that does not fit', async () => {
    const port = telepresenceReplacement({
      exec: fake({
        status: [0, '{"user_daemon":{"running":true,"status":"Connected","namespace":"pharos"}}'],
        list: [0, '{"cmd":"list","stdout":[{"name":"api","namespace":7}]}'],
      }),
    });
    await expect(port.replace(api, 'l')).rejects.toThrow(
      /Cannot read "telepresence list --output json": stdout\.0\.namespace: /,
    );
  });
  it('a failing command is an error with its exit status and the end of its stderr', async () => {
    const port = telepresenceReplacement({
      exec: fake({
        status: [0, '{"user_daemon":{"running":false,"status":"Not connected"}}'],
        connect: [1, '', 'connector.Connect: traffic manager not found\n'],
      }),
    });
    await expect(port.replace(api, 'l')).rejects.toThrow(
      'Cannot run "telepresence connect --namespace pharos": exit 1: connector.Connect: traffic manager not found',
    );
  });
  it('status with none of user_daemon, daemon or connections is refused, saying so', () => {
    expect(() => parseTelepresence(statusSchema, '{"traffic_manager":{}}', 'status --output json')).toThrow(
      'Cannot read "telepresence status --output json": (top): none of user_daemon, daemon or connections is there',
    );
  });
  it("the daemon container: 2.20's container: prefix is read too; default bridge or a host daemon names none", () => {
    const read = (daemon: object) =>
      daemonContainer(daemonOf(parseTelepresence(statusSchema, JSON.stringify({ daemon }), 'status')));
    expect(read({ running: true, in_docker: true, container_network: 'container:tp-default-pharos-cn' })).toBe(
      'tp-default-pharos-cn',
    );
    expect(read({ running: true, in_docker: true, container_network: 'default bridge' })).toBeUndefined();
    expect(read({ running: true, in_docker: false, container_network: 'tp-x' })).toBeUndefined();
    expect(read({ running: false, in_docker: true, container_network: 'tp-x' })).toBeUndefined();
  });
  it('several connections (each would need --use) are refused by name; one is read as the only one', () => {
    const two = '{"connections":[{"daemon":{"name":"a-cn"}},{"user_daemon":{"name":"b"}}]}';
    expect(() => daemonOf(parseTelepresence(statusSchema, two, 'status'))).toThrow(
      'Cannot use Telepresence: it has 2 connections ("a-cn", "b")',
    );
    const one = '{"connections":[{"daemon":{"name":"a-cn","status":"Connected"}}]}';
    expect(daemonOf(parseTelepresence(statusSchema, one, 'status')).status).toBe('Connected');
  });
});
