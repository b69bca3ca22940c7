import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec } from '../../../scripts/lib/ports/exec.ts';
import { missingToolLine, parseToolList, probeTool } from '../../../scripts/lib/tools/index.ts';
import type { Tool } from '../../../scripts/lib/tools/index.ts';

let bin = '';
const context = () => ({ exec, env: { PATH: bin } });
const tool = (probe: string, program = 'x', pkg = 'x-pkg'): Tool => {
  const [parsed] = parseToolList([program, 'test', pkg, probe, 'does things'].join('\t'), 'list.tsv');
  if (parsed === undefined) throw new Error('no tool');
  return parsed;
};
async function script(name: string, body: string, mode = 0o755): Promise<string> {
  const file = join(bin, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, mode);
  return file;
}

beforeAll(async () => {
  bin = await mkdtemp(join(tmpdir(), 'probe-tool-'));
  await script('kubectl-old', 'echo \'Client Version: version.Info{Major:"1", Minor:"20", GitVersion:"v1.20.2"}\'');
  await script('kubectl-new', 'echo "Client Version: v1.32.4-dispatcher"; echo "Kustomize Version: v5.5.0"');
  await script('fails', 'exit 1');
  await script('not-executable', 'exit 0', 0o644);
});
afterAll(() => rm(bin, { recursive: true, force: true }));

describe('probeTool', () => {
  it('on-path finds an executable in PATH, and only an executable', async () => {
    expect(await probeTool(tool('on-path fails'), context())).toEqual({ state: 'present' });
    expect(await probeTool(tool('on-path not-executable'), context())).toEqual({ state: 'missing' });
    expect(await probeTool(tool('on-path nowhere'), context())).toEqual({ state: 'missing' });
  });

  it('executable, readable and static look at an absolute path', async () => {
    expect(await probeTool(tool(`executable ${join(bin, 'fails')}`), context())).toEqual({ state: 'present' });
    expect(await probeTool(tool(`executable ${join(bin, 'not-executable')}`), context())).toEqual({ state: 'missing' });
    expect(await probeTool(tool(`readable ${join(bin, 'not-executable')}`), context())).toEqual({ state: 'present' });
    expect(await probeTool(tool(`readable ${bin}`), context())).toEqual({ state: 'missing' }); // a folder
    // a dynamically linked program is not the static one a base image needs (ldd from the machine's PATH)
    const machine = { exec, env: process.env };
    expect(await probeTool(tool('static /bin/sh'), machine)).toEqual({ state: 'missing' });
    expect(await probeTool(tool('static /bin/busybox'), machine)).toEqual({ state: 'present' }); // busybox-static
  });

  it('answers needs exit status 0; a program that cannot start is missing, not an error', async () => {
    expect(await probeTool(tool('answers kubectl-new'), context())).toEqual({ state: 'present' });
    expect(await probeTool(tool('answers fails'), context())).toEqual({ state: 'missing' });
    expect(await probeTool(tool('answers nowhere --version'), context())).toEqual({ state: 'missing' });
  });

  it('version reads the first MAJOR.MINOR of both kubectl output styles and says what it found when too old', async () => {
    expect(await probeTool(tool('version 1.22 kubectl-new'), context())).toEqual({ state: 'present' });
    expect(await probeTool(tool('version 1.22 kubectl-old'), context())).toEqual({ state: 'too-old', found: '1.20' });
    expect(await probeTool(tool('version 1.20 kubectl-old'), context())).toEqual({ state: 'present' });
    expect(await probeTool(tool('version 2.0 kubectl-new'), context())).toEqual({ state: 'too-old', found: '1.32' });
  });

  it('takes the first alternative that finds the program', async () => {
    expect(await probeTool(tool('answers fails|on-path kubectl-old'), context())).toEqual({ state: 'present' });
    expect(await probeTool(tool('answers fails|on-path nowhere'), context())).toEqual({ state: 'missing' });
  });
});

describe('missingToolLine', () => {
  it('names the program, what it is for and its Debian package in one line', () => {
    expect(missingToolLine(tool('on-path promtool', 'promtool', 'prometheus'), { state: 'missing' })).toBe(
      'promtool is missing: it does things (Debian package prometheus)',
    );
  });

  it('says a too-old program is too old, with the minimum, and a package from elsewhere is not Debian’s', () => {
    const kubectl = tool('version 1.22 kubectl version --client', 'kubectl', 'kubectl@pkgs.k8s.io');
    expect(missingToolLine(kubectl, { state: 'too-old', found: '1.20' })).toBe(
      "kubectl 1.20 is too old (needs 1.22 or newer): it does things (package kubectl from pkgs.k8s.io, not Debian's)",
    );
    expect(missingToolLine(kubectl, { state: 'missing' })).toBe(
      "kubectl 1.22 or newer is missing: it does things (package kubectl from pkgs.k8s.io, not Debian's)",
    );
  });
});
