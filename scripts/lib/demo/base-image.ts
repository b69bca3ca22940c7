import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exec } from '../ports/exec.ts';

export const BASE_IMAGE = 'pharos/base:local';
const APPLETS = [
  'sh',
  'cat',
  'echo',
  'ls',
  'sleep',
  'env',
  'mkdir',
  'cp',
  'rm',
  'wget',
  'nc',
  'test',
  'true',
  'false',
  'printf',
  'grep',
  'sed',
  'date',
  'hostname',
  'touch',
  'kill',
  'dirname',
];

/** The example's base image, made by `docker import` of a root file system holding static busybox: nothing is pulled. */
export async function ensureBaseImage(tag = BASE_IMAGE, busybox = '/bin/busybox'): Promise<'present' | 'imported'> {
  if ((await exec('docker', ['image', 'inspect', '--format', '{{.Id}}', tag])).code === 0) return 'present';
  const root = await mkdtemp(join(tmpdir(), 'hephaestus-base-'));
  try {
    await mkdir(join(root, 'bin'));
    await mkdir(join(root, 'tmp'));
    await copyFile(busybox, join(root, 'bin', 'busybox'));
    for (const applet of APPLETS) await symlink('busybox', join(root, 'bin', applet));
    await importRootFs(root, tag, ['ENV PATH=/bin']);
    return 'imported';
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** `tar -c root | docker import`: an image from a root file system made on this machine, nothing pulled. */
export async function importRootFs(root: string, tag: string, changes: readonly string[]): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const tar = spawn('tar', ['-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const imp = spawn('docker', ['import', ...changes.flatMap((c) => ['--change', c]), '-', tag], {
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let err = '';
    imp.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    tar.stdout.pipe(imp.stdin);
    tar.on('error', reject);
    imp.on('error', reject);
    imp.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`docker import ${tag} failed: ${err.trim()}`)),
    );
  });
}
