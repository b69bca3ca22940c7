// What the Telepresence 2.31 SIMULATOR prints, shaped as telepresenceio/telepresence's Go types print it (sources and
// the fixtures it is held against: test/support/contracts/telepresence/sources.ts): `status --output json` is the bare
// StatusInfo (go-json-experiment: false and 0 are printed, empty members left out), `list --output json` the
// `{"cmd":"list","stdout":[…]}` wrapper of WorkloadInfo (encoding/json, proto key names, disposition 1 = ACTIVE),
// `version` the key-value lines.
import { createHash } from 'node:crypto';
import { goJson } from '../helm-simulator/go-output.ts';
import type { SimState } from './state.ts';

export const VERSION = '2.31.2';
export const CLIENT = 'dev@simulator';
const SESSION = '5e1d3c2b-0a9f-4e8d-b7c6-a5f4e3d2c1b0';
const INSTALL_ID = '0d4a8b2c-6e1f-4a3b-9c5d-7e8f0a1b2c3d';
const uid = (seed: string) => {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

/**
 * A containerized daemon's StatusInfo (status.go toMap with in_docker): `daemon` (ContainerizedDaemonStatus, the user
 * daemon's members inlined: go-json-experiment inlines an embedded struct without a name) and `traffic_manager`, no
 * root daemon; `container_network` is the daemon's container. Its DNS and routing members are left out.
 */
export function dockerStatusJson(state: SimState, context: string, name: string, container: string): string {
  const ns = state.connected?.namespace;
  const replacements = Object.entries(state.replaced)
    .filter(([key]) => key.startsWith(`${ns}/`))
    .map(([, r]) => ({ name: r.name, client: CLIENT }));
  return goJson({
    daemon: {
      running: true,
      in_docker: true,
      name,
      daemon_port: 58802,
      container_network: container,
      version: VERSION,
      executable: '/usr/local/bin/telepresence',
      install_id: INSTALL_ID,
      status: 'Connected',
      kubernetes_server: 'https://127.0.0.1:6443',
      kubernetes_context: context,
      namespace: ns,
      manager_namespace: 'ambassador',
      ...(replacements.length === 0 ? {} : { replacements }),
    },
    traffic_manager: {
      name: 'OSS Traffic Manager',
      version: `v${VERSION}`,
      traffic_agent: `ghcr.io/telepresenceio/tel2:${VERSION}`,
    },
  });
}

/** StatusInfo: no daemon → the zero value; a daemon without a connection → "Not connected". */
export function statusJson(state: SimState, daemonRunning: boolean, executable: string): string {
  const connected = state.connected;
  const ns = connected?.namespace;
  const replacements = Object.entries(state.replaced)
    .filter(([key]) => key.startsWith(`${ns}/`))
    .map(([, r]) => ({ name: r.name, client: CLIENT }));
  const user = !daemonRunning
    ? { running: false, in_docker: false, daemon_port: 0 }
    : {
        running: true,
        in_docker: false,
        daemon_port: 0,
        version: VERSION,
        executable,
        install_id: INSTALL_ID,
        status: connected === null ? 'Not connected' : 'Connected',
        ...(connected === null
          ? {}
          : {
              kubernetes_server: 'https://127.0.0.1:6443',
              kubernetes_context: 'simulator',
              namespace: ns,
              manager_namespace: 'ambassador',
              ...(replacements.length === 0 ? {} : { replacements }),
            }),
      };
  return goJson({
    root_daemon:
      connected === null
        ? { running: false, api_version: 0 }
        : { running: true, name: 'OSS Root Daemon', version: `v${VERSION}`, api_version: 3 },
    traffic_manager:
      connected === null
        ? {}
        : {
            name: 'OSS Traffic Manager',
            version: `v${VERSION}`,
            traffic_agent: `ghcr.io/telepresenceio/tel2:${VERSION}`,
          },
    user_daemon: user,
  });
}

/** One WorkloadInfo, its InterceptInfo only while an attachment is active (rpc/connector, rpc/manager protos). */
function workloadInfo(state: SimState, namespace: string, name: string) {
  const r = state.replaced[`${namespace}/${name}`];
  const [local, remote] = r?.port?.split(':') ?? [];
  const replace = r?.mechanism === 'replace';
  return {
    name,
    namespace,
    intercept_info:
      r === undefined
        ? undefined
        : [
            {
              spec: {
                name: r.name,
                client: CLIENT,
                agent: name,
                workload_kind: 'Deployment',
                namespace,
                mechanism: 'tcp',
                target_host: r.address,
                port_identifier: remote,
                protocol: 'TCP',
                container_name: r.container,
                container_port: remote !== undefined && /^\d+$/.test(remote) ? Number(remote) : undefined,
                target_port: local === undefined ? undefined : Number(local),
                replace: replace || undefined,
                no_default_port: replace || undefined,
              },
              id: `${SESSION}:${r.name}`,
              client_session: { session_id: SESSION },
              disposition: 1,
              pod_name: `${name}-5d8f7c9b6-x2k4q`,
              api_port: 8081,
              pod_ip: '10.42.0.17',
              sftp_port: 37113,
              client_mount_point: `/tmp/telfs-${name}`,
              mount_point: `/tel_app_mounts/${r.container ?? name}`,
              modified_at: { seconds: 1787900400, nanos: 118000000 },
            },
          ],
    workload_resource_type: 'Deployment',
    uid: uid(`${namespace}/${name}`),
    agent_version: (state.agents[namespace] ?? []).includes(name) ? VERSION : undefined,
  };
}

export const listJson = (state: SimState, namespace: string, names: readonly string[]): string =>
  goJson({ cmd: 'list', stdout: [...names].sort().map((n) => workloadInfo(state, namespace, n)) });

/** A command failing under --output json: the error in `err`, nothing on stderr. */
export const errorJson = (cmd: string, message: string): string => goJson({ cmd, err: message });

/** pkg/client/cli/cmd/version.go through ioutil.KeyValueFormatter: keys padded to the longest, then ": ". */
export function versionText(daemonRunning: boolean): string {
  const rows: [string, string][] = daemonRunning
    ? [
        ['OSS Client', `v${VERSION}`],
        ['OSS Root Daemon', `v${VERSION}`],
        ['OSS User Daemon', `v${VERSION}`],
      ]
    : [
        ['OSS Client', `v${VERSION}`],
        ['Root Daemon', 'not running'],
        ['User Daemon', 'not running'],
      ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}: ${v}\n`).join('');
}
