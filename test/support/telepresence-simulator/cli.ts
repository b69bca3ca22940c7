// SIMULATOR of the Telepresence 2.31 CLI (not Telepresence), pinned to 2.31.2 (docs/takeover.md "Telepresence"): the
// commands takeover runs, with the flags of telepresenceio/telepresence.io@23afff6:versioned_docs/version-2.31/
// reference/cli/ (connect -n; replace|intercept <workload> [--port local:remote] [--address] [--container] [-n];
// detach <attachment> [-c] [-n]; leave, its hidden deprecated alias; uninstall {--all-agents | <workloads…>}, which
// has no --namespace; quit [-s]; status and list with --output json; version) and the output of outputs.ts. State
// lives in $TELEPRESENCE_SIMULATOR_HOME; the user daemon (daemon.ts) forwards loopback TCP for the simulated cluster
// (cluster-side.ts); `connect --docker` runs the daemon as a real container instead (docker-mode.ts, sources there).
// Stricter than Telepresence where its behaviour is not modelled: `list` never connects by itself, a second
// connection (host and container, or two containers) is refused, `--format` (2.29+: envelope-free output whose shapes
// are not read here) is refused. Not modelled: `version`'s rows for a containerized daemon (it prints the host's), and
// the daemon's DNS and routing members in `status`. Fidelity: docs/test-cluster.md.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { runDaemon } from './daemon.ts';
import {
  containerRunning,
  daemonName,
  readDockerConfig,
  removeDaemonContainer,
  runDaemonContainer,
} from './docker-mode.ts';
import { dockerStatusJson, errorJson, listJson, statusJson, versionText } from './outputs.ts';
import { homeOf, readServices, readState, withState } from './state.ts';

const [command, ...rest] = process.argv.slice(2);

/** A refusal: thrown (so a held state lock is released), printed by the top level as Telepresence prints errors. */
class Refusal extends Error {}
function fail(message: string): never {
  throw new Refusal(message);
}

function daemonPid(home: string): number | undefined {
  try {
    const pid = (JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')) as { pid: number }).pid;
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/** `quit -s`: returns once the daemon is gone, so a `connect` right after never finds it exiting. */
async function stopDaemon(home: string): Promise<void> {
  const pid = daemonPid(home);
  if (pid !== undefined) {
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (daemonPid(home) === pid && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }
  rmSync(join(home, 'daemon.json'), { force: true });
}

async function startDaemon(home: string): Promise<void> {
  if (daemonPid(home) !== undefined) return;
  rmSync(join(home, 'daemon.json'), { force: true });
  const child = spawn(process.execPath, [process.argv[1]!, '__daemon'], {
    detached: true,
    stdio: 'ignore',
    env: process.env,
  });
  child.unref();
  const deadline = Date.now() + 10_000;
  while (!existsSync(join(home, 'daemon.json'))) {
    if (Date.now() > deadline) fail('the daemon did not start within 10 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const OPTIONS = {
  connect: { namespace: { type: 'string', short: 'n' }, docker: { type: 'boolean' } },
  replace: {
    port: { type: 'string', short: 'p' },
    address: { type: 'string' },
    container: { type: 'string' },
    namespace: { type: 'string', short: 'n' },
  },
  intercept: {
    port: { type: 'string', short: 'p' },
    address: { type: 'string' },
    namespace: { type: 'string', short: 'n' },
  },
  detach: { container: { type: 'string', short: 'c' }, namespace: { type: 'string', short: 'n' } },
  uninstall: { 'all-agents': { type: 'boolean', short: 'a' } },
  quit: { 'stop-daemons': { type: 'boolean', short: 's' } },
  status: { 'multi-daemon': { type: 'boolean' } },
  list: { namespace: { type: 'string', short: 'n' }, agents: { type: 'boolean', short: 'a' } },
  version: {},
} as const;
const GLOBAL = { output: { type: 'string' }, format: { type: 'string' } } as const;

async function main(): Promise<void> {
  const home = homeOf();
  appendFileSync(join(home, 'calls.jsonl'), `${JSON.stringify({ argv: process.argv.slice(2) })}\n`);
  const verb = command === 'leave' ? 'detach' : command;
  if (command === undefined || command === '--help' || command === 'help') {
    process.stdout.write(
      'telepresence (SIMULATOR 2.31.2): version, connect, quit, status, list, replace, intercept, detach, uninstall\n',
    );
    return;
  }
  if (verb === undefined || !(verb in OPTIONS)) fail(`unknown command "${command}" for "telepresence"`);
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    const options: ParseArgsConfig['options'] = { ...OPTIONS[verb as keyof typeof OPTIONS], ...GLOBAL };
    parsed = parseArgs({ args: rest, options, allowPositionals: true }) as typeof parsed;
  } catch (error) {
    fail((error as Error).message.replace(/^Unknown option '([^']*)'.*$/s, 'unknown flag: $1'));
  }
  const { values, positionals } = parsed;
  if (values.format !== undefined)
    fail('the simulator models --output (whose exact behaviour 2.31 keeps), not the envelope-free --format');
  const json = values.output === 'json';
  if (values.output !== undefined && !['json', 'default'].includes(String(values.output)))
    fail(`invalid output format "${String(values.output)}"`);
  // cobra: a deprecated command still runs, after a notice on stderr.
  if (command === 'leave') process.stderr.write('Command "leave" is deprecated, use "telepresence detach" instead\n');
  const connectedTo = () => readState(home).connected?.namespace;
  switch (verb) {
    case 'version':
      process.stdout.write(versionText(daemonPid(home) !== undefined));
      break;
    case 'connect': {
      const namespace = String(values.namespace ?? 'default');
      const docker = values.docker === true;
      let now = readState(home).connected;
      // A daemon container that died took its session with it: connect afresh.
      if (now?.docker !== undefined && !(await containerRunning(now.docker.container)))
        now = withState(home, (s) => {
          s.connected = null;
          s.replaced = {};
          return null;
        });
      if (now !== null && now.namespace !== namespace)
        fail(
          `connector.Connect: already connected to namespace "${now.namespace}"; quit first to connect to "${namespace}"`,
        );
      if (now !== null && (now.docker !== undefined) !== docker)
        fail(
          `already connected ${now.docker === undefined ? 'from the host' : 'in a container'}; the simulator keeps one connection: quit first`,
        );
      if (docker && now === null) {
        const config =
          readDockerConfig(home) ?? fail('connect --docker: this simulator was started without a Docker cluster');
        const started = await runDaemonContainer(home, config, namespace);
        withState(home, (s) => {
          s.connected = { namespace, docker: started };
        });
      }
      const already = withState(home, (s) => {
        const was = s.connected !== null && now !== null;
        s.connected ??= { namespace };
        return was;
      });
      if (!docker) await startDaemon(home);
      process.stdout.write(
        already
          ? `Already connected to namespace ${namespace}\n`
          : `Connected to context ${docker ? readDockerConfig(home)!.context : 'simulator'}, namespace ${namespace}\n`,
      );
      break;
    }
    case 'quit': {
      const container = readState(home).connected?.docker?.container;
      withState(home, (s) => {
        s.connected = null;
        s.replaced = {}; // a session's replacements end with it; agents stay in the cluster
      });
      // A containerized daemon quits even without -s (and --rm removes its container).
      if (container !== undefined) await removeDaemonContainer(container);
      // Without -s the user daemon keeps running, disconnected; -s stops it.
      if (values['stop-daemons'] === true) await stopDaemon(home);
      process.stdout.write('Disconnected\n');
      break;
    }
    case 'status': {
      if (!json) fail('the simulator prints status only with --output json');
      const state = readState(home);
      const docker = state.connected?.docker;
      const config = readDockerConfig(home);
      if (docker !== undefined && config !== undefined && (await containerRunning(docker.container)))
        process.stdout.write(
          dockerStatusJson(
            state,
            config.context,
            daemonName(config.context, state.connected!.namespace),
            docker.container,
          ),
        );
      // A daemon container that died leaves no daemon to ask: the zero StatusInfo.
      else if (docker !== undefined) process.stdout.write(statusJson({ ...state, connected: null }, false, ''));
      else process.stdout.write(statusJson(state, daemonPid(home) !== undefined, process.argv[1] ?? ''));
      break;
    }
    case 'list': {
      const namespace = typeof values.namespace === 'string' ? values.namespace : connectedTo();
      if (!json) fail('the simulator prints list only with --output json');
      if (connectedTo() === undefined || namespace === undefined) {
        process.stdout.write(
          errorJson('list', 'not connected (the simulator does not connect by itself: run "telepresence connect")'),
        );
        process.exitCode = 1;
        return;
      }
      const s = readState(home);
      const names = new Set([
        ...readServices(home)
          .filter((v) => v.namespace === namespace)
          .map((v) => v.workload),
        ...(s.agents[namespace] ?? []),
        ...Object.keys(s.replaced)
          .filter((k) => k.startsWith(`${namespace}/`))
          .map((k) => k.slice(namespace.length + 1)),
      ]);
      const shown =
        values.agents === true ? [...names].filter((n) => (s.agents[namespace] ?? []).includes(n)) : [...names];
      process.stdout.write(listJson(s, namespace, shown));
      break;
    }
    case 'replace':
    case 'intercept': {
      const workload = positionals[0] ?? fail(`accepts at least 1 arg(s), received 0`);
      const port = values.port === undefined ? undefined : String(values.port);
      if (port !== undefined && !/^\d{1,5}:[\w-]+$/.test(port))
        fail('port must be of the format --port <local-port>[:<svcPortIdentifier>]');
      const namespace = typeof values.namespace === 'string' ? values.namespace : connectedTo();
      if (namespace === undefined || namespace !== connectedTo())
        fail('not connected to that namespace (the simulator does not connect by itself)');
      const container = typeof values.container === 'string' ? values.container : undefined;
      const name = verb === 'replace' && container !== undefined ? `${workload}/${container}` : workload;
      withState(home, (s) => {
        const key = `${namespace}/${workload}`;
        if (s.replaced[key] !== undefined)
          fail(`workload "${workload}" already has the attachment "${s.replaced[key].name}" (simulator)`);
        s.replaced[key] = {
          name,
          address: typeof values.address === 'string' ? values.address : '127.0.0.1',
          mechanism: verb,
          ...(port === undefined ? {} : { port }),
          ...(container === undefined ? {} : { container }),
        };
        const agents = (s.agents[namespace] ??= []);
        if (!agents.includes(workload)) agents.push(workload);
      });
      process.stdout.write(`Using Deployment ${workload}\n   State       : ACTIVE\n   Workload kind: Deployment\n`);
      break;
    }
    case 'detach': {
      const given = positionals[0] ?? fail('accepts 1 arg(s), received 0');
      const container = typeof values.container === 'string' ? values.container : undefined;
      const name = container === undefined ? given : `${given}/${container}`;
      withState(home, (s) => {
        const key = Object.keys(s.replaced).find(
          (k) => s.replaced[k]?.name === name && k.startsWith(`${connectedTo() ?? ''}/`),
        );
        if (key === undefined)
          fail(
            `Found no replace, intercept, or ingest named "${given}"${container === undefined ? '' : ` with container "${container}"`}`,
          );
        delete s.replaced[key];
      });
      break;
    }
    case 'uninstall': {
      const namespace = connectedTo() ?? fail('not connected (the simulator does not connect by itself)');
      if (values['all-agents'] === true && positionals.length > 0)
        fail('--all-agents cannot be used with additional arguments');
      if (values['all-agents'] !== true && positionals.length === 0)
        fail('please specify at least one workload or use or --all-agents');
      withState(home, (s) => {
        const agents = s.agents[namespace] ?? [];
        const removing = values['all-agents'] === true ? [...agents] : positionals.filter((p) => agents.includes(p));
        // Removing an agent restarts its pods: a replacement still active there is cut off (what the queue prevents).
        for (const workload of removing) {
          if (s.replaced[`${namespace}/${workload}`] !== undefined) {
            delete s.replaced[`${namespace}/${workload}`];
            s.disrupted.push(`${namespace}/${workload}`);
          }
        }
        s.agents[namespace] = agents.filter((a) => !removing.includes(a));
        if (s.agents[namespace]!.length === 0) delete s.agents[namespace];
      });
      break;
    }
  }
}

if (command === '__daemon') await runDaemon(homeOf());
else
  await main().catch((error: unknown) => {
    // pkg/client/cli/main.go: `<command path>: error: <message>` on stderr, exit 1.
    process.stderr.write(`telepresence ${command ?? ''}: error: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
