// The installer make demo and .ci/run share: its refusal path, run as an unprivileged user so nothing is ever installed here.
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec } from '../../scripts/lib/ports/index.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];
let bin = '';

/** Runs a command as user nobody, with PATH holding only `bin` (plus what the test adds) and no Docker daemon. */
const asNobody = (path: string, command: string[]) =>
  exec('setpriv', [...NOBODY, 'env', '-i', `PATH=${path}`, 'DOCKER_HOST=unix:///nonexistent/docker.sock', ...command], {
    timeoutMs: 60_000,
  });

beforeAll(async () => {
  bin = await mkdtemp(join(tmpdir(), 'install-tools-bin-'));
  await chmod(bin, 0o755);
  for (const tool of ['bash', 'env', 'id']) {
    const found = (await exec('sh', ['-c', `command -v ${tool}`])).stdout.toString('utf8').trim();
    await symlink(found, join(bin, tool));
  }
});
afterAll(async () => {
  await rm(bin, { recursive: true, force: true });
});

describe('scripts/install-tools.sh where it may not install (not root)', () => {
  it('changes nothing, prints the exact list of what to install and the apt-get line, and exits 2', async () => {
    const result = await asNobody(bin, [join(ROOT, 'scripts/install-tools.sh')]);
    const stderr = result.stderr;
    expect(result.code).toBe(2);
    expect(result.stdout.toString('utf8')).toBe('');
    expect(stderr.split('\n')[0]).toBe(
      'install-tools: missing tools, and this is not root, so nothing was installed. Install:',
    );
    for (const line of [
      '  - git (Debian package git)',
      '  - make (Debian package make)',
      "  - npm, to install the project's own Node 24 (Debian package npm)",
      '  - Docker Engine (docker, dockerd) (Debian package docker.io)',
      '  - Docker Compose (Debian package docker-compose)',
      '  - kubectl, which the Argo CD simulator and check render with (Debian package kubernetes-client)',
      '  - promtool, which tests the host alert rules (Debian package prometheus)',
      '  - systemd-analyze, which verifies the host units (Debian package systemd)',
      '  - ansible-playbook, which runs the dev box cluster layers (Debian package ansible-core)',
      "  - a running Docker Engine (start dockerd, or Docker Desktop; 'docker info' must answer)",
    ]) {
      expect(stderr.split('\n')).toContain(line);
    }
    // PostgreSQL and sshd are looked for at their paths (not on a user's PATH), so they are listed only where not installed.
    expect(stderr).toMatch(
      /^On Debian, as root: apt-get install git make npm .*docker\.io docker-compose .*kubernetes-client prometheus systemd( postgresql)? ansible-core( openssh-server)?$/m,
    );
  });

  it('for the demo it does not ask for kubectl, which only the tests need', async () => {
    const result = await asNobody(bin, [join(ROOT, 'scripts/install-tools.sh'), 'demo']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('  - Docker Engine (docker, dockerd) (Debian package docker.io)');
    expect(result.stderr).not.toContain('kubectl');
  });
});

describe('make demo without a Docker socket', () => {
  it('stops at the installer with the install list and exit status 2, before npm or any stack trace', async () => {
    const result = await asNobody(`${bin}:/usr/bin:/bin`, ['make', '-s', '--no-print-directory', '-C', ROOT, 'demo']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'install-tools: missing tools, and this is not root, so nothing was installed. Install:',
    );
    expect(result.stderr).toContain(
      "  - a running Docker Engine (start dockerd, or Docker Desktop; 'docker info' must answer)",
    );
    expect(result.stderr).not.toMatch(/\n\s+at |internal error/);
    expect(result.stdout.toString('utf8')).not.toContain('npm');
    expect(result.stderr).not.toContain('kubectl');
  });
});
