// Test double for `systemd-run --wait` (no systemd runs here): records the transient unit's properties and command
// as one JSON line in $SYSTEMD_RUN_RECORD, then runs the command as a service would get it: cwd /, an environment of
// only Environment= and EnvironmentFile= (the file's settings win, as systemd.exec(5) says) plus PATH from
// $SYSTEMD_RUN_PATH (systemd's own default PATH would find no Node 24 here), UMask= applied, stdout and stderr to a
// journal file ($SYSTEMD_RUN_JOURNAL), the command's exit status as its own. The sandbox settings are only recorded:
// nothing here enforces ProtectSystem= or ReadWritePaths=, so tests compare them with the shipped unit instead.
import { spawnSync } from 'node:child_process';
import { appendFileSync, openSync, readFileSync } from 'node:fs';
import { parseEnvFile } from '../../../scripts/lib/host/load-host-config.ts';

// The properties the documented runs set; systemd-run refuses an assignment it does not know ("Unknown assignment").
const KNOWN = new Set([
  'Type',
  'EnvironmentFile',
  'Environment',
  'StateDirectory',
  'StateDirectoryMode',
  'TimeoutStartSec',
  'Nice',
  'UMask',
  'NoNewPrivileges',
  'ProtectSystem',
  'ProtectHome',
  'PrivateTmp',
  'ReadWritePaths',
  'RestrictAddressFamilies',
  'RestrictSUIDSGID',
  'RestrictRealtime',
  'LockPersonality',
  'SystemCallFilter',
  'SystemCallErrorNumber',
]);

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

const args = process.argv.slice(2);
const properties: string[] = [];
let unit = '';
let wait = false;
while (args.length > 0 && args[0]?.startsWith('-')) {
  const arg = args.shift() ?? '';
  if (arg === '--wait') wait = true;
  else if (arg === '--collect') continue;
  else if (arg.startsWith('--unit=')) unit = arg.slice('--unit='.length);
  else if (arg === '-p' || arg === '--property') properties.push(args.shift() ?? fail(`${arg} needs a value`));
  else if (arg.startsWith('--property=')) properties.push(arg.slice('--property='.length));
  else fail(`systemd-run (test double): unknown option ${arg}`);
}
if (!wait) fail('systemd-run (test double): only --wait runs are modelled');
if (args.length === 0) fail('Command line to execute required.');
const env: Record<string, string> = {};
const files: Record<string, string> = {};
let umask: number | undefined;
for (const property of properties) {
  const at = property.indexOf('=');
  const [name, value] = [property.slice(0, at), property.slice(at + 1)];
  if (at < 1 || !KNOWN.has(name)) fail(`Unknown assignment: ${property}`);
  if (name === 'Environment') {
    const eq = value.indexOf('=');
    if (eq < 1) fail(`Invalid environment assignment, ignoring: ${value}`);
    env[value.slice(0, eq)] = value.slice(eq + 1);
  } else if (name === 'EnvironmentFile') {
    const optional = value.startsWith('-');
    const path = optional ? value.slice(1) : value;
    try {
      Object.assign(files, parseEnvFile(readFileSync(path, 'utf8'), path));
    } catch (error) {
      if (!optional) fail(`Failed to load environment files: ${(error as Error).message}`);
    }
  } else if (name === 'UMask') umask = Number.parseInt(value, 8);
}
appendFileSync(
  process.env.SYSTEMD_RUN_RECORD ?? fail('SYSTEMD_RUN_RECORD is not set'),
  `${JSON.stringify({ unit, properties, command: args })}\n`,
);
const journal = openSync(process.env.SYSTEMD_RUN_JOURNAL ?? fail('SYSTEMD_RUN_JOURNAL is not set'), 'a');
if (umask !== undefined) process.umask(umask);
process.stderr.write(`Running as unit: ${unit}.service; invocation ID: 0\n`);
const [program = '', ...rest] = args;
const run = spawnSync(program, rest, {
  cwd: '/',
  env: { ...env, ...files, PATH: process.env.SYSTEMD_RUN_PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin' },
  stdio: ['ignore', journal, journal],
});
const code = run.status ?? 1;
process.stderr.write(`Finished with result: ${code === 0 ? 'success' : 'exit-code'}\n`);
process.stderr.write(
  `Main processes terminated with: code=exited, status=${code}/${code === 0 ? 'SUCCESS' : 'FAILURE'}\n`,
);
process.exit(code);
