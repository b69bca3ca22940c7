// Telepresence 2.31's JSON, as its Go types encode it (no golden files exist upstream): each fixture is what the named
// code prints for the state it describes. `--output json` is the flag read here: 2.29 added `--format` and deprecated
// `--output`, which "keeps its exact previous behavior" (telepresenceio/telepresence.io@23afff6:
// versioned_docs/version-2.31/release-notes.md, 2.29.0). Sources, telepresenceio/telepresence@751726a7 (v2.22.4, the
// newest release whose whole tree is readable here; the 2.31 files the port depends on are unchanged in shape):
// - pkg/client/cli/output/output.go: formatted output is `{"cmd","stdout","stderr","err"}` (encoding/json, omitempty),
//   except for an object set with override (status), printed alone; an error under --output is the `err` member on
//   stdout, exit 1, nothing on stderr (pkg/client/cli/main.go).
// - pkg/client/cli/cmd/status.go: StatusInfo {root_daemon, user_daemon, traffic_manager}, marshalled with
//   go-json-experiment/json, whose omitempty drops only empty JSON values (null, "", {}, []), never false or 0
//   (go-json-experiment/json@170dfdc:arshal_default.go), and whose maps have no defined key order; with no user daemon
//   the whole StatusInfo is zero.
// - Docker mode (`connect --docker`), telepresenceio/telepresence@001e0c0d:pkg/client/cli/cmd/status.go (2.22, with
//   replacements): StatusInfo.toMap of a containerized daemon is `{daemon, traffic_manager}`, no root daemon; `daemon`
//   is ContainerizedDaemonStatus, whose embedded *UserDaemonStatus go-json-experiment inlines (a Go embedding without
//   a JSON name: go-json-experiment/json@0580b24:fields.go), with `in_docker: true`, `name` (the daemon identifier,
//   `<context>-<namespace>-cn`: @09d9a26d:pkg/client/cli/daemon/identifier.go) and `container_network`, the daemon's
//   container `tp-<name>` (`default bridge` when no subnet is routed; 2.20 printed `container:tp-<name>`,
//   @ebb90267:pkg/client/cli/cmd/status.go). Several connections print `{connections: [StatusInfo…]}` (2.18.0).
// - pkg/client/cli/cmd/list.go: output.Object(ctx, workloads, false): the WorkloadInfo list, `[]` when empty.
// - rpc/connector/connector.proto WorkloadInfo, rpc/manager/manager.proto InterceptInfo, InterceptSpec and
//   InterceptDispositionType (ACTIVE = 1): protoc-gen-go's snake_case json tags, enums as numbers.
// - pkg/client/cli/intercept/command.go ValidateReplace: `replace W --container C` names the attachment `W/C`.
// - pkg/client/cli/cmd/version.go, pkg/ioutil/keyvalueformatter.go: `OSS Client : v…` lines.
// - pkg/client/cli/cmd/detach.go (2.30+; stored at 4af68bb): the error for an unknown attachment name.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const TELEPRESENCE_FIXTURES = {
  'status-no-daemon.json':
    'status --output json with no user daemon running (getStatusInfo returns the zero StatusInfo)',
  'status-not-connected.json': 'status --output json with a user daemon but no connection (ConnectInfo_DISCONNECTED)',
  'status-connected.json':
    'status --output json connected to namespace pharos, replacing api/api (root DNS and routing left out)',
  'status-docker.json':
    'status --output json after connect --docker, namespace pharos, replacing api/api (DNS and routing left out)',
  'list.json': 'list --output json: api replaced (replace api --container api --port 41000:8080), worker not engaged',
  'list-empty.json': 'list --output json with no workloads',
  'list-error.json': 'list --output json when the command fails: the error in `err`, exit 1',
  'version.txt': 'version with no daemon running',
  'detach-unknown.txt': 'detach api when no attachment is named api (stderr, exit 1)',
} as const;

export type TelepresenceFixture = keyof typeof TELEPRESENCE_FIXTURES;

export const telepresenceFixture = (name: TelepresenceFixture): string =>
  readFileSync(join(import.meta.dirname, name), 'utf8');

/** The release the port and the simulator speak. */
export const TELEPRESENCE_VERSION = '2.31.2';
