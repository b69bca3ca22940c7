// Every fenced block of docs/runbooks.md, run in order as an operator would, against a host lab: real git, Docker Engine,
// Compose and registry; paths moved under a temporary root; `systemctl` a recording double (no systemd runs here).
import { mkdir, readFile, readlink, readdir, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { makeHostLab } from '../support/host/host-lab.ts';
import type { Host, HostLab } from '../support/host/host-lab.ts';

const REPO = join(import.meta.dirname, '..', '..');
const RECORDER = join(import.meta.dirname, '..', 'support', 'host', 'systemctl-recorder.sh');
const REAL_HOST_ONLY = /^# needs a real host: /;

interface Block {
  readonly section: string;
  readonly text: string;
}

/** The fenced `sh` blocks of the runbooks, each with the `##` section it stands in. */
function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let section = '';
  let open: string[] | undefined;
  for (const raw of markdown.split('\n')) {
    const line = raw.replace(/^ {3}/, '');
    if (line.startsWith('## ')) section = line.slice(3);
    if (open === undefined && line === '```sh') open = [];
    else if (open !== undefined && line === '```') {
      blocks.push({ section, text: open.join('\n') });
      open = undefined;
    } else open?.push(line);
  }
  return blocks;
}

let lab: HostLab;
let host: Host;
let env: NodeJS.ProcessEnv;
let blocks: Block[];
const ran = new Set<Block>();
let record: string;
let images: Record<string, string>;

/** The block as it runs here: the host's paths under the lab root, this repository's scripts as the tooling, Node 24. */
function localise(text: string): string {
  return text
    .replaceAll('/var/lib/hephaestus/tooling/scripts/', `${REPO}/scripts/`)
    .replaceAll('/var/lib/hephaestus', host.root)
    .replaceAll('/etc/hephaestus', host.etc)
    .replaceAll('/etc/systemd/system', String(env.HEPHAESTUS_SYSTEMD_DIR))
    .replaceAll('https://github.com/OWNER/REPO.git', lab.repo.remote)
    .replaceAll('<release>', 'v1.0.0')
    .replace(/^node /gm, `${process.execPath} `);
}

async function runSection(section: string): Promise<string> {
  const mine = blocks.filter((b) => b.section === section);
  expect(mine.length, `no fenced block under "${section}"`).toBeGreaterThan(0);
  let out = '';
  for (const block of mine) {
    const result = await exec('bash', ['-euo', 'pipefail', '-c', localise(block.text)], { env });
    expect(result.code, `${section}:\n${block.text}\n${result.stderr}`).toBe(0);
    out += result.stdout.toString();
    ran.add(block);
  }
  return out;
}

const systemctlCalls = async () => (await readFile(record, 'utf8').catch(() => '')).split('\n').filter((l) => l !== '');

beforeAll(async () => {
  blocks = fencedBlocks(await readFile(join(REPO, 'docs', 'runbooks.md'), 'utf8'));
  lab = await makeHostLab();
  const reconcile = (name: string) => readFile(join(REPO, 'deploy', 'reconcile', name), 'utf8');
  const commit = await lab.commit(
    {
      'package.json': '{"name": "platform", "private": true, "type": "module"}\n',
      'package-lock.json':
        '{"name": "platform", "lockfileVersion": 3, "requires": true, "packages": {"": {"name": "platform"}}}\n',
      'scripts/reconcile-deployment.ts': "process.stdout.write('the platform reconciler\\n');\n",
      'deploy/reconcile/hephaestus-reconcile.service': await reconcile('hephaestus-reconcile.service'),
      'deploy/reconcile/hephaestus-reconcile.timer': await reconcile('hephaestus-reconcile.timer'),
      'deploy/reconcile/reconcile.env.example': await reconcile('reconcile.env.example'),
    },
    'the platform carries the reconciler',
  );
  images = await lab.build('rb');
  for (const tag of ['v0.95.1', 'v1.0.0']) {
    await lab.tag(tag, commit);
    await lab.publishLock(tag, commit, images);
  }
  host = await lab.host('staging');
  const shims = join(lab.repo.root, 'shims');
  await mkdir(shims);
  await symlink(RECORDER, join(shims, 'systemctl'));
  record = join(lab.repo.root, 'systemctl.log');
  const systemd = join(lab.repo.root, 'systemd');
  await mkdir(systemd);
  env = {
    ...process.env,
    ...host.env,
    PATH: `${shims}:${process.env.PATH ?? ''}`,
    SYSTEMCTL_RECORD: record,
    HEPHAESTUS_SYSTEMD_DIR: systemd,
    HEPHAESTUS_SYSTEMCTL: join(shims, 'systemctl'),
    HEPHAESTUS_METRICS_FILE: join(host.root, 'metrics', 'hephaestus.prom'),
  };
});
afterAll(async () => {
  await lab?.cleanup();
});

describe('docs/runbooks.md, block by block', () => {
  it('Install: the checkout, the tooling link, reconcile.env (0600) and the units; the first tick applies and adopts', async () => {
    await runSection('Install');
    expect(await readlink(join(host.root, 'tooling'))).toBe(join(host.root, 'checkout'));
    expect((await stat(join(host.etc, 'reconcile.env'))).mode & 0o777).toBe(0o600);
    expect(await readdir(String(env.HEPHAESTUS_SYSTEMD_DIR))).toEqual([
      'hephaestus-reconcile.service',
      'hephaestus-reconcile.timer',
    ]);
    expect(await systemctlCalls()).toEqual(['daemon-reload', 'enable --now hephaestus-reconcile.timer']);
    await lab.promote('staging', ['--release', 'v1.0.0']);
    const tick = await host.tick(env);
    expect([tick.code, tick.result], tick.stderr).toEqual([0, 'applied']);
    expect(await readlink(join(host.root, 'tooling'))).toBe(join(host.root, 'releases', 'v1.0.0'));
  });

  it('Pause before manual changes: the timer is disabled, the loop sees no running tick, the timer comes back', async () => {
    await runSection('Pause before manual changes');
    expect((await systemctlCalls()).slice(-3)).toEqual([
      'disable --now hephaestus-reconcile.timer',
      'show --property=ActiveState --value hephaestus-reconcile.service',
      'enable --now hephaestus-reconcile.timer',
    ]);
  });

  it('See what a host runs: status and applied.json name the applied release', async () => {
    const out = await runSection('See what a host runs, and why');
    expect(out).toMatch(/^applied: v1\.0\.0 /m);
    expect(out).toMatch(/"release": "v1\.0\.0"/);
  });

  it('Upgrade a host installed before the tooling link: the checkout advances, the link and units follow; the installed verifier checks a lock by tag', async () => {
    const out = await runSection('Upgrade a host installed before the tooling link existed');
    expect(out).toContain(join(host.root, 'checkout'));
    expect(await readlink(join(host.root, 'tooling'))).toBe(join(host.root, 'checkout'));
    expect(out).toMatch(/^[0-9a-f]{40}$/m);
    expect(await systemctlCalls()).toContain('start hephaestus-reconcile.service');
  });

  it('Keep a release worktree: lock, unlock and remove the worktree with the commands as written', async () => {
    const commit = await lab.commit({ RELEASE: 'v1.1.0\n' }, 'v1.1.0');
    await lab.tag('v1.1.0', commit);
    await lab.publishLock('v1.1.0', commit, {
      ...images,
      ...(await lab.build('rb2', { only: ['HEPHAESTUS_IMAGE_API'] })),
    });
    await lab.promote('staging', ['--release', 'v1.1.0']);
    expect((await host.tick(env)).code).toBe(0);
    await runSection('Keep a release worktree while you work in it');
    await expect(stat(join(host.root, 'releases', 'v1.0.0'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('every fenced block either ran here or says in its first line that it needs a real host', () => {
    const rest = blocks.filter((b) => !ran.has(b));
    for (const block of rest)
      expect(block.text.split('\n')[0], `${block.section}: ${block.text}`).toMatch(REAL_HOST_ONLY);
    expect(rest.map((b) => b.section)).toEqual(['Move an existing host']);
  });
});
