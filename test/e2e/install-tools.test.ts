// The installer make demo and .ci/run share, and the preflight the test suites run first: both read one list,
// scripts/install-tools.tsv. Nothing here installs or starts anything: real runs happen as user nobody (refused),
// dry runs as root with stand-ins for apt-get and dockerd that record any call.
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec } from '../../scripts/lib/ports/index.ts';
import { parseToolList, toolsFor } from '../../scripts/lib/tools/index.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const INSTALLER = join(ROOT, 'scripts/install-tools.sh');
const TOOLS = parseToolList(readFileSync(join(ROOT, 'scripts/install-tools.tsv'), 'utf8'), 'install-tools.tsv');
const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];
let base = '';
let minimal = ''; // bash, env and id only
let calls = ''; // where the stand-ins record that they were run

/** Runs a command as user nobody, with only `path` on PATH and no Docker daemon. */
const asNobody = (path: string, command: string[]) =>
  exec('setpriv', [...NOBODY, 'env', '-i', `PATH=${path}`, 'DOCKER_HOST=unix:///nonexistent/docker.sock', ...command], {
    timeoutMs: 60_000,
  });
/** Runs the installer as root (this test's user) with only `path` on PATH. */
const asRoot = (path: string, ...args: string[]) =>
  exec('env', ['-i', `PATH=${path}`, INSTALLER, ...args], { timeoutMs: 60_000 });
const lines = (result: { stdout: Buffer }) => result.stdout.toString('utf8').trimEnd().split('\n');

async function standIn(dir: string, name: string, body: string): Promise<void> {
  await writeFile(join(dir, name), `#!/bin/sh\n${body}\n`);
  await chmod(join(dir, name), 0o755);
}

/** Every program the installer finds through PATH: those the list names there, and what the script itself runs. */
const PATH_PROGRAMS = [
  ...new Set([
    'bash',
    'env',
    'id',
    'ldd',
    ...TOOLS.flatMap((t) => t.probes.map((p) => (p.kind === 'on-path' ? p.name : 'command' in p ? p.command : ''))),
  ]),
].filter((name) => name !== '');

/** A PATH folder holding this machine's programs of PATH_PROGRAMS but those left out, plus the stand-ins given. */
async function machineWithout(name: string, leftOut: readonly string[], standIns: Record<string, string>) {
  const dir = join(base, name);
  await mkdir(dir);
  await chmod(dir, 0o755);
  for (const [program, body] of Object.entries(standIns)) await standIn(dir, program, body);
  for (const program of PATH_PROGRAMS) {
    if (leftOut.includes(program) || program in standIns) continue;
    const found = (await exec('sh', ['-c', 'command -v "$1"', 'sh', program])).stdout.toString('utf8').trim();
    if (found !== '') await symlink(found, join(dir, program));
  }
  return dir;
}

/** What the fresh machines of this kind ship: a Docker client that answers --version, and no engine. */
const CLIENT_ONLY_DOCKER = `case "$1" in
  --version) echo "Docker version 28.2.2, build e6534b4" ;;
  *) echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2; exit 1 ;;
esac`;
const recorder = (name: string) => `echo "${name} $*" >> "${join(base, 'calls')}"; exit 1`;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'install-tools-'));
  await chmod(base, 0o755);
  calls = join(base, 'calls');
  minimal = join(base, 'minimal');
  await mkdir(minimal);
  await chmod(minimal, 0o755);
  for (const tool of ['bash', 'env', 'id']) {
    const found = (await exec('sh', ['-c', `command -v ${tool}`])).stdout.toString('utf8').trim();
    await symlink(found, join(minimal, tool));
  }
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('scripts/install-tools.sh --dry-run: what it would install and start, changing nothing', () => {
  it('on a machine with only a Docker client (answers --version, fails info) and no dockerd: docker.io for dockerd, then the engine start', async () => {
    const path = await machineWithout('client-only', ['dockerd'], {
      docker: CLIENT_ONLY_DOCKER,
      'apt-get': recorder('apt-get'),
    });
    const result = await asRoot(path, 'demo', '--dry-run');
    expect(result.code).toBe(0);
    expect(lines(result)).toEqual([
      `install-tools: dry run for make demo: 1 of ${toolsFor(TOOLS, 'demo').length} programs missing (scripts/install-tools.tsv); nothing is changed`,
      'install-tools: would install docker.io, for dockerd: runs Docker Engine, which builds and runs every image',
      "install-tools: would start dockerd: Docker Engine does not answer 'docker info' (log: /var/log/install-tools-dockerd.log)",
    ]);
    expect(result.stderr).toBe('');
    expect(existsSync(calls)).toBe(false); // apt-get was never run
  });

  it('with everything present and the engine answering (this machine): nothing to install or start', async () => {
    const result = await asRoot(process.env.PATH ?? '', 'test', '--dry-run');
    expect([result.code, result.stderr, lines(result)]).toEqual([
      0,
      '',
      [
        `install-tools: dry run for make test: all ${toolsFor(TOOLS, 'test').length} programs are here and Docker Engine answers: nothing to install or start`,
      ],
    ]);
  });

  it('with dockerd installed but not running: only the start, and it never starts it', async () => {
    const path = await machineWithout('engine-stopped', [], {
      docker: CLIENT_ONLY_DOCKER,
      dockerd: recorder('dockerd'),
      'apt-get': recorder('apt-get'),
    });
    const result = await asRoot(path, 'test', '--dry-run');
    expect(lines(result).slice(1)).toEqual([
      "install-tools: would start dockerd: Docker Engine does not answer 'docker info' (log: /var/log/install-tools-dockerd.log)",
    ]);
    expect(existsSync(calls)).toBe(false);
  });

  it('a kubectl too old for the kustomizations is named with its version, and never installed from Debian', async () => {
    const path = await machineWithout('old-kubectl', [], {
      kubectl: `echo 'Client Version: version.Info{Major:"1", Minor:"20", GitVersion:"v1.20.2"}'`,
      'apt-get': recorder('apt-get'),
    });
    const result = await asRoot(path, 'test', '--dry-run');
    expect(result.code).toBe(0);
    expect(lines(result).slice(1)).toEqual([
      'install-tools: cannot install kubectl 1.20 is too old (needs 1.22 or newer): no Debian package provides it; ' +
        'install package kubectl from pkgs.k8s.io by hand (why: scripts/install-tools.tsv)',
    ]);
    expect((await asRoot(path, 'demo', '--dry-run')).stdout.toString('utf8')).not.toContain('kubectl');
  });

  it('where it may not install (not root) it says so, then shows what root would do; still exit 0', async () => {
    const result = await asNobody(minimal, [INSTALLER, 'demo', '--dry-run']);
    expect(result.code).toBe(0);
    expect(lines(result)[1]).toBe(
      'install-tools: a real run here changes nothing and exits 2 (this is not root); as root on Debian it would:',
    );
    expect(lines(result)).toContain(
      'install-tools: would install docker.io, for dockerd: runs Docker Engine, which builds and runs every image; ' +
        'docker: is the Docker CLI every build, push and container call goes through',
    );
  });

  it('refuses an unknown argument with its usage and exit 2', async () => {
    const result = await asRoot(minimal, '--dryrun');
    expect([result.code, result.stderr.trim()]).toEqual([
      2,
      'install-tools: unknown argument "--dryrun"; usage: install-tools.sh [demo|devbox|test] [--dry-run]   (default: test)',
    ]);
  });
});

describe('scripts/install-tools.sh where it may not install (not root)', () => {
  it('changes nothing, prints each missing program with what it is for and its package, the apt-get line, and exits 2', async () => {
    const result = await asNobody(minimal, [INSTALLER]);
    const stderr = result.stderr.split('\n');
    expect(result.code).toBe(2);
    expect(result.stdout.toString('utf8')).toBe('');
    expect(stderr[0]).toBe('install-tools: missing tools, and this is not root, so nothing was installed. Install:');
    for (const line of [
      "  - git: clones, fingerprints and delivers the example platform's commits (Debian package git)",
      '  - dockerd: runs Docker Engine, which builds and runs every image (Debian package docker.io)',
      '  - docker: is the Docker CLI every build, push and container call goes through (Debian package docker.io)',
      "  - docker compose: applies a host's release (Compose: the v2 plugin, or v1's docker-compose) (Debian package docker-compose)",
      '  - promtool: checks and tests the host alert rules (Debian package prometheus)',
      "  - a running Docker Engine this user can reach (start dockerd or Docker Desktop, or join the docker group; 'docker info' must answer)",
    ]) {
      expect(stderr).toContain(line);
    }
    // Programs found by their PATH name are missing from this PATH; those at fixed paths only where not installed.
    for (const tool of toolsFor(TOOLS, 'test').filter((t) => t.probes.every((p) => p.kind === 'on-path'))) {
      expect(stderr.some((line) => line.startsWith(`  - ${tool.program}: `))).toBe(
        !['bash', 'env', 'id'].includes(tool.program),
      );
    }
    expect(stderr).toContain(
      '  - kubectl 1.22 or newer: renders kustomizations for check and the Argo CD simulator, and talks to the ' +
        "Kubernetes API test server (package kubectl from pkgs.k8s.io, not Debian's; see scripts/install-tools.tsv)",
    );
    const apt = stderr.find((line) => line.startsWith('On Debian, as root: apt-get install '));
    expect(apt?.split(' ')).toEqual(expect.arrayContaining(['git', 'make', 'npm', 'docker.io', 'prometheus']));
    expect(apt).not.toContain('kubectl');
  });

  it('for the demo it does not ask for kubectl, which only the tests and make demo-devbox need', async () => {
    const result = await asNobody(minimal, [INSTALLER, 'demo']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '  - dockerd: runs Docker Engine, which builds and runs every image (Debian package docker.io)',
    );
    expect(result.stderr).not.toContain('kubectl');
    expect((await asNobody(minimal, [INSTALLER, 'devbox'])).stderr).toContain('  - kubectl 1.22 or newer: ');
  });
});

describe('make demo without a Docker socket', () => {
  it('stops at the installer with the install list and exit status 2, before npm or any stack trace', async () => {
    const result = await asNobody(`${minimal}:/usr/bin:/bin`, [
      'make',
      '-s',
      '--no-print-directory',
      '-C',
      ROOT,
      'demo',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'install-tools: missing tools, and this is not root, so nothing was installed. Install:',
    );
    expect(result.stderr).toContain(
      "  - a running Docker Engine this user can reach (start dockerd or Docker Desktop, or join the docker group; 'docker info' must answer)",
    );
    expect(result.stderr).not.toMatch(/\n\s+at |internal error/);
    expect(result.stdout.toString('utf8')).not.toContain('npm');
    expect(result.stderr).not.toContain('kubectl');
  });
});

describe('the test suites’ preflight (test/support/preflight.ts) reads the same list', () => {
  it('a hidden program stops the suite before any test with one line naming it and its Debian package', async () => {
    const path = await machineWithout('no-promtool', ['promtool'], {});
    const result = await exec(
      join(ROOT, 'node_modules/.bin/vitest'),
      ['run', '--project', 'unit', 'test/unit/tools/tool-list.test.ts'],
      { cwd: ROOT, env: { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}:${path}` }, timeoutMs: 120_000 },
    );
    const output = `${result.stdout.toString('utf8')}${result.stderr}`;
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'preflight (unit): promtool is missing: it checks and tests the host alert rules (Debian package prometheus)',
      'preflight (unit): as root on Debian, scripts/install-tools.sh test installs and starts what is missing (--dry-run shows what it would do)',
    ]);
    expect(output).not.toMatch(/\n\s+at |Error:|✓/);
  });
});
