// SIMULATOR of the Telepresence 2.x CLI (not Telepresence): the commands takeover runs, with the argument forms of
// Telepresence 2.26's reference (`connect --namespace`, `replace|intercept <workload> --port local:remote
// [--address] [--container]`, `leave <name>`, `uninstall {--agent <names>|--all-agents} [--namespace]`, `quit`,
// `status|list --output json`, `version`). State lives in $TELEPRESENCE_SIMULATOR_HOME; a daemon forwards each
// daemon really forwards loopback TCP (daemon.ts, cluster-side.ts). Fidelity notes: docs/test-cluster.md ("Telepresence simulator").
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runDaemon } from './daemon.ts';
import { homeOf, readServices, readState, withState } from './state.ts';

const VERSION = 'v2.26.0';
const [command, ...rest] = process.argv.slice(2);

function fail(message: string, code = 1): never {
  process.stderr.write(`telepresence: error: ${message}\n`);
  process.exit(code);
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

/** As `telepresence quit` does, returns once the daemon is gone: a `connect` right after never finds it exiting. */
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

const options = {
  namespace: { type: 'string', short: 'n' },
  output: { type: 'string', short: 'o' },
  port: { type: 'string' },
  address: { type: 'string' },
  container: { type: 'string' },
  agent: { type: 'boolean', short: 'd' },
  'all-agents': { type: 'boolean', short: 'a' },
} as const;

if (command === '__daemon') {
  await runDaemon(homeOf());
} else {
  const home = homeOf();
  appendFileSync(join(home, 'calls.jsonl'), `${JSON.stringify({ argv: process.argv.slice(2) })}\n`);
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true });
  } catch (error) {
    fail(`${(error as Error).message}`, 2);
  }
  const { values, positionals } = parsed;
  const json = values.output === 'json';
  const connectedTo = () =>
    readState(home).connected?.namespace ?? fail('not connected (run "telepresence connect" first)');
  switch (command) {
    case 'version':
      process.stdout.write(`OSS Client : ${VERSION} (simulator)\n`);
      break;
    case 'connect': {
      const namespace = values.namespace ?? 'default';
      const already = withState(home, (s) => {
        if (s.connected !== null && s.connected.namespace !== namespace)
          fail(
            `connector.Connect: already connected to namespace "${s.connected.namespace}"; quit first to connect to "${namespace}"`,
          );
        const was = s.connected !== null;
        s.connected = { namespace };
        return was;
      });
      await startDaemon(home);
      process.stdout.write(
        already
          ? `Already connected to namespace ${namespace}\n`
          : `Connected to context simulator, namespace ${namespace}\n`,
      );
      break;
    }
    case 'quit': {
      withState(home, (s) => {
        s.connected = null;
        s.replaced = {}; // a session's replacements end with it; agents stay in the cluster
      });
      await stopDaemon(home);
      process.stdout.write('Telepresence Daemons quitting...done\n');
      break;
    }
    case 'status': {
      const s = readState(home);
      const status = {
        user_daemon: {
          running: s.connected !== null,
          status: s.connected === null ? 'Not connected' : 'Connected',
          ...(s.connected === null ? {} : { namespace: s.connected.namespace }),
        },
        root_daemon: { running: s.connected !== null, version: VERSION },
      };
      process.stdout.write(
        json
          ? `${JSON.stringify(status)}\n`
          : `User Daemon: ${status.user_daemon.status}${s.connected ? ` (namespace ${s.connected.namespace})` : ''}\n`,
      );
      break;
    }
    case 'list': {
      const namespace = connectedTo();
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
      const rows = [...names].sort().map((name) => {
        const r = s.replaced[`${namespace}/${name}`];
        return {
          name,
          namespace,
          workload_resource_type: 'Deployment',
          ...((s.agents[namespace] ?? []).includes(name) ? { agent_version: VERSION } : {}),
          ...(r === undefined
            ? {}
            : {
                intercept_infos: [
                  {
                    spec: {
                      name,
                      namespace,
                      agent: name,
                      mechanism: 'tcp',
                      ...(r.port === undefined
                        ? {}
                        : { port_identifier: r.port.split(':')[1], target_port: Number(r.port.split(':')[0]) }),
                      target_host: r.address,
                    },
                    disposition: 'ACTIVE',
                  },
                ],
              }),
        };
      });
      process.stdout.write(
        json
          ? `${JSON.stringify(rows)}\n`
          : rows.map((r) => `${r.name}: ${r.intercept_infos ? 'replaced' : 'ready to engage'}`).join('\n') + '\n',
      );
      break;
    }
    case 'replace':
    case 'intercept': {
      const name = positionals[0] ?? fail(`${command}: a workload name is required`, 2);
      if (values.port !== undefined && !/^\d{1,5}:[\w-]+$/.test(values.port))
        fail(`${command}: --port "${values.port}" is not <local port>:<remote port or name>`, 2);
      const namespace = connectedTo();
      withState(home, (s) => {
        const key = `${namespace}/${name}`;
        if (s.replaced[key] !== undefined) fail(`${command}: "${name}" is already replaced or intercepted`);
        s.replaced[key] = {
          address: values.address ?? '127.0.0.1',
          mechanism: command,
          ...(values.port === undefined ? {} : { port: values.port }),
          ...(values.container === undefined ? {} : { container: values.container }),
        };
        const agents = (s.agents[namespace] ??= []);
        if (!agents.includes(name)) agents.push(name);
      });
      process.stdout.write(`Using Deployment ${name}\n   State       : ACTIVE\n   Workload kind: Deployment\n`);
      break;
    }
    case 'leave': {
      const name = positionals[0] ?? fail('leave: an intercept name is required', 2);
      const namespace = connectedTo();
      withState(home, (s) => {
        if (s.replaced[`${namespace}/${name}`] === undefined) fail(`leave: intercept "${name}" not found`);
        delete s.replaced[`${namespace}/${name}`];
      });
      break;
    }
    case 'uninstall': {
      const namespace = values.namespace ?? connectedTo();
      if (values['all-agents'] !== true && positionals.length === 0)
        fail('uninstall: give --all-agents or the workloads whose agent to remove', 2);
      withState(home, (s) => {
        const agents = s.agents[namespace] ?? [];
        const removing = values['all-agents'] === true ? [...agents] : positionals.filter((p) => agents.includes(p));
        // Removing an agent restarts its pods: a replacement still active there is cut off (what the queue prevents).
        for (const name of removing) {
          if (s.replaced[`${namespace}/${name}`] !== undefined) {
            delete s.replaced[`${namespace}/${name}`];
            s.disrupted.push(`${namespace}/${name}`);
          }
        }
        s.agents[namespace] = agents.filter((a) => !removing.includes(a));
        if (s.agents[namespace]!.length === 0) delete s.agents[namespace];
      });
      break;
    }
    case undefined:
    case '--help':
    case 'help':
      process.stdout.write(
        'telepresence (SIMULATOR): version, connect, quit, status, list, replace, intercept, leave, uninstall\n',
      );
      break;
    default:
      fail(`unknown command "${command}" for "telepresence"`, 2);
  }
}
