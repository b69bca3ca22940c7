// A minimal image made from this machine's binaries and the shared libraries `ldd` names: nothing is pulled, and
// nothing else is in it (no shell, no git unless asked for).
import { mkdir, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { exec } from '../../../scripts/lib/ports/exec.ts';
import { docker, dockerOk } from './docker-cli.ts';

export interface RootfsFile {
  readonly from: string;
  readonly to: string;
}

async function libraries(binary: string): Promise<string[]> {
  const listed = await exec('ldd', [binary]);
  return [...listed.stdout.toString('utf8').matchAll(/(\/\S+)\s+\(0x/g)].map((m) => m[1] as string);
}

/** Imports `files` and their libraries as image `tag`, unless this machine already has it. */
export async function rootfsImage(tag: string, files: readonly RootfsFile[]): Promise<string> {
  if ((await docker(['image', 'inspect', tag])).code === 0) return tag;
  const root = await mkdtemp(join(tmpdir(), 'pharos-rootfs-'));
  try {
    const all = [...files];
    for (const file of files) for (const lib of await libraries(file.from)) all.push({ from: lib, to: lib });
    for (const file of all) {
      await mkdir(join(root, dirname(file.to)), { recursive: true });
      await copyFile(file.from, join(root, file.to));
    }
    await mkdir(join(root, 'tmp'), { recursive: true });
    const tar = await exec('tar', ['-C', root, '-cf', '-', '.']);
    if (tar.code !== 0) throw new Error(`tar of the ${tag} root file system failed: ${tar.stderr}`);
    await dockerOk(['import', '-', tag], { input: tar.stdout });
    return tag;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The image the module runs git in (dagger/src/git-in-container.ts GIT_IMAGE), made from this machine's git. */
export async function ensureGitImage(tag: string): Promise<string> {
  return rootfsImage(tag, [{ from: '/usr/bin/git', to: '/usr/bin/git' }]);
}
