// Builds the local base image (`pharos/base:local`) by `docker import` of a busybox-static root filesystem: nothing is pulled.
import { mkdtemp, mkdir, copyFile, symlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { exec, execOk } from '../../scripts/lib/ports/exec.ts';

export const BASE_IMAGE = 'pharos/base:local';
const APPLETS = ['sh', 'cat', 'echo', 'ls', 'sleep', 'env', 'mkdir', 'cp', 'rm', 'wget', 'nc', 'test', 'true', 'false', 'printf', 'grep', 'sed'];

/** Fails loudly when Docker is absent: tests that need it must never skip. */
export async function requireDocker(): Promise<void> {
  const info = await exec('docker', ['info', '--format', '{{.ServerVersion}}']).catch((error: Error) => ({ code: -1, stderr: error.message, stdout: Buffer.alloc(0) }));
  if (info.code !== 0) throw new Error(`Docker Engine is required for this test and is not usable: ${info.stderr.trim()}`);
}

/** Imports the base image once per machine; later calls return at once when the tag exists. */
export async function ensureBaseImage(tag: string = BASE_IMAGE, busybox = '/bin/busybox'): Promise<string> {
  await requireDocker();
  const present = await exec('docker', ['image', 'inspect', '--format', '{{.Id}}', tag]);
  if (present.code === 0) return tag;
  const root = await mkdtemp(join(tmpdir(), 'pharos-base-'));
  try {
    await mkdir(join(root, 'bin'));
    await mkdir(join(root, 'tmp'));
    await copyFile(busybox, join(root, 'bin', 'busybox'));
    for (const applet of APPLETS) await symlink('busybox', join(root, 'bin', applet));
    await new Promise<void>((resolve, reject) => {
      const tar = spawn('tar', ['-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
      const imp = spawn('docker', ['import', '--change', 'ENV PATH=/bin', '-', tag], { stdio: ['pipe', 'ignore', 'pipe'] });
      let err = '';
      imp.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      tar.stdout.pipe(imp.stdin);
      imp.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`docker import ${tag} failed: ${err.trim()}`))));
      tar.on('error', reject);
      imp.on('error', reject);
    });
    await execOk(exec, 'docker', ['image', 'inspect', '--format', '{{.Id}}', tag]);
    return tag;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
