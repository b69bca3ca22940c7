// Every fenced block of docs/runbooks.md, run in order as an operator would, against a host lab: real git, Docker Engine,
// Compose and registry; paths moved under a temporary root; `systemctl` a recording double (no systemd runs here).
// And the blocks of docs/chart-host.md one machine can run: the Compose -> chart switch (real npm ci, the real reconciler
// of a newer commit, `systemd-run` a recording double) and prepare-release-chart's five-argument form.
import { mkdir, readFile, readlink, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { makeHostLab } from '../support/host/host-lab.ts';
import type { Host, HostLab } from '../support/host/host-lab.ts';
import { makeChartLab } from '../support/helm-simulator/chart-lab.ts';
import type { ChartLab } from '../support/helm-simulator/chart-lab.ts';
import { HELM_SIMULATOR } from '../support/helm-simulator/paths.ts';

const REPO = join(import.meta.dirname, '..', '..');
const RECORDER = join(import.meta.dirname, '..', 'support', 'host', 'systemctl-recorder.sh');
const SYSTEMD_RUN = join(import.meta.dirname, '..', 'support', 'host', 'systemd-run-recorder.sh');
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

/** `[Service]` settings of the shipped unit, as `Name=value` lines. */
async function serviceSettings(): Promise<string[]> {
  const text = await readFile(join(REPO, 'deploy', 'reconcile', 'hephaestus-reconcile.service'), 'utf8');
  const service = text.slice(text.indexOf('[Service]') + '[Service]'.length);
  return service.split('\n').filter((l) => /^[A-Za-z]+=/.test(l));
}

describe('docs/chart-host.md, the blocks one machine can run', () => {
  let chart: ChartLab;
  let edge: Host;
  let chartEnv: NodeJS.ProcessEnv;
  let chartBlocks: Block[];
  let main: string;
  let reconcilerCommit: string;
  let runRecord: string;
  let journal: string;
  const at = (needle: string) => {
    const found = chartBlocks.filter((b) => b.text.includes(needle));
    expect(found.length, `one block of docs/chart-host.md with ${needle}`).toBe(1);
    return found[0] as Block;
  };
  const runChartBlock = async (block: Block) => {
    const text = block.text
      .replaceAll('sudo ', '')
      .replaceAll('/var/lib/hephaestus/tooling/scripts/', `${REPO}/scripts/`)
      .replaceAll('/var/lib/hephaestus', edge.root)
      .replaceAll('/etc/hephaestus', edge.etc)
      .replaceAll('/etc/systemd/system', String(chartEnv.HEPHAESTUS_SYSTEMD_DIR))
      .replaceAll('<a main commit with the chart applier>', reconcilerCommit)
      .replaceAll('<commit>', main)
      .replace(/^node /gm, `${process.execPath} `);
    return exec('bash', ['-euo', 'pipefail', '-c', text], { env: chartEnv, timeoutMs: 600_000 });
  };

  beforeAll(async () => {
    chartBlocks = fencedBlocks(await readFile(join(REPO, 'docs', 'chart-host.md'), 'utf8'));
    chart = await makeChartLab();
    main = await chart.lab.repo.git(['rev-parse', 'HEAD']);
    const images = await chart.lab.build('rbc', {
      only: ['HEPHAESTUS_IMAGE_API', 'HEPHAESTUS_IMAGE_WORKER', 'HEPHAESTUS_IMAGE_MIGRATE'],
    });
    await chart.lab.publishLock('v1.0.0', main, images);
    await chart.publishRelease('v1.0.0', main, images);
    edge = await chart.lab.host('edge', { stacks: 'app' });
    // Installed as docs/runbooks.md's Install does: the reconciler checkout the host fetches into.
    await exec('git', ['clone', '--quiet', chart.lab.repo.remote, join(edge.root, 'checkout')]);
    await chart.lab.signChannel('edge', { release: 'v1.0.0', allowRollback: false });
    const compose = await edge.tick();
    expect(compose.code, compose.stderr).toBe(0);
    // A newer main commit that carries this repository's reconciler (with the chart applier) and its package files.
    const listed = await exec('git', [
      '-C',
      REPO,
      'ls-files',
      'scripts',
      'package.json',
      'package-lock.json',
      '.gitignore',
    ]);
    const files: Record<string, string> = {};
    for (const path of listed.stdout
      .toString()
      .split('\n')
      .filter((p) => p !== ''))
      files[path] = await readFile(join(REPO, path), 'utf8');
    reconcilerCommit = await chart.lab.commit(files, 'the reconciler with the chart applier');
    const shims = join(chart.lab.repo.root, 'chart-shims');
    await mkdir(shims);
    // Scripts, not links: the doubles find the project's Node from their own folder.
    for (const [name, target] of [
      ['systemd-run', SYSTEMD_RUN],
      ['systemctl', RECORDER],
      ['helm', HELM_SIMULATOR],
    ] as const)
      await writeFile(join(shims, name), `#!/bin/sh\nexec ${JSON.stringify(target)} "$@"\n`, { mode: 0o755 });
    runRecord = join(chart.lab.repo.root, 'systemd-run.jsonl');
    journal = join(chart.lab.repo.root, 'systemd-run.journal');
    const systemd = join(chart.lab.repo.root, 'chart-systemd');
    await mkdir(systemd);
    chartEnv = {
      ...process.env,
      ...edge.env,
      PATH: `${shims}:${process.env.PATH ?? ''}`,
      SYSTEMD_RUN_RECORD: runRecord,
      SYSTEMD_RUN_JOURNAL: journal,
      // The host's node is Node 24 (the install's requirement): here the project's own.
      SYSTEMD_RUN_PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      // npm ci from the machine's npm cache: the tests reach no registry.
      npm_config_offline: 'true',
      SYSTEMCTL_RECORD: join(chart.lab.repo.root, 'chart-systemctl.log'),
      HEPHAESTUS_SYSTEMD_DIR: systemd,
      HEPHAESTUS_SYSTEMCTL: join(shims, 'systemctl'),
    };
  }, 600_000);
  afterAll(async () => {
    await chart?.cleanup();
  });

  it("Compose -> chart: the switch block installs the reconciler's dependencies and runs it with the service's settings; Helm installs the release the host runs", async () => {
    // Steps 1-4 of the page: the Compose stacks stopped (volumes kept), HEPHAESTUS_STACKS=chart and its settings in reconcile.env.
    const ids = (await edge.containers()).map((c) => c.id);
    await exec('docker', ['stop', '--time', '2', ...ids]);
    const settings: Record<string, string | undefined> = {
      ...edge.env,
      ...chart.chartSettings('edge'),
      HEPHAESTUS_SYSTEMD_DIR: String(chartEnv.HEPHAESTUS_SYSTEMD_DIR),
      HEPHAESTUS_SYSTEMCTL: String(chartEnv.HEPHAESTUS_SYSTEMCTL),
      SYSTEMCTL_RECORD: String(chartEnv.SYSTEMCTL_RECORD),
    };
    await writeFile(
      join(edge.etc, 'reconcile.env'),
      Object.entries(settings)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(''),
      { mode: 0o600 },
    );
    const block = at('systemd-run');
    const run = await runChartBlock(block);
    expect(run.code, `${run.stderr}\n${await readFile(journal, 'utf8').catch(() => '')}`).toBe(0);
    const [recorded] = (await readFile(runRecord, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { unit: string; properties: string[]; command: string[] });
    // Every setting of the shipped service but its ExecStart= and its two-hour limit, localised as the block is.
    const local = (p: string) =>
      p
        .replaceAll('/var/lib/hephaestus', edge.root)
        .replaceAll('/etc/hephaestus', edge.etc)
        .replaceAll('/etc/systemd/system', String(chartEnv.HEPHAESTUS_SYSTEMD_DIR));
    const wanted = (await serviceSettings()).filter((l) => !/^(ExecStart|TimeoutStartSec)=/.test(l)).map(local);
    expect([...recorded!.properties].filter((p) => !p.startsWith('TimeoutStartSec=')).sort()).toEqual(wanted.sort());
    expect(recorded!.command).toEqual([
      '/usr/bin/env',
      'node',
      join(edge.root, 'switch', 'scripts', 'reconcile-deployment.ts'),
    ]);
    // The run applied the release the channel names with Helm and recorded it; the switch worktree is gone.
    const said = await readFile(journal, 'utf8');
    expect(said).toMatch(/^reconcile-deployment: decide status=switch applied=v1\.0\.0 helm="no release"$/m);
    expect(said).toMatch(
      /^reconcile-deployment: upgrade step=\d+ status=ok .*helm=upgraded revision=1 chart=hephaestus-1\.0\.0$/m,
    );
    expect((await edge.applied())?.release).toBe('v1.0.0');
    const status = JSON.parse(
      (
        await exec(HELM_SIMULATOR, ['status', 'hephaestus', '--namespace', 'ns-edge', '-o', 'json'], {
          env: { ...process.env, KUBECONFIG: settings.KUBECONFIG },
        })
      ).stdout.toString(),
    ) as { info: { status: string } };
    expect(status.info.status).toBe('deployed');
    await expect(stat(join(edge.root, 'switch'))).rejects.toMatchObject({ code: 'ENOENT' });
  }, 600_000);

  it("prepare-release-chart's five-argument form, as written: the release's evidence manifest from its source tree, Helm from PATH", async () => {
    // The database maintenance procedure leaves the release's evidence manifest in the prepared source tree.
    const published = await exec('git', [
      '-C',
      chart.lab.repo.remote,
      'show',
      'deploy-state:locks/release-v1.0.0.evidence.json',
    ]);
    await mkdir(join(edge.root, 'releases', 'v1.0.0', 'security'), { recursive: true });
    await writeFile(join(edge.root, 'releases', 'v1.0.0', 'security', 'release-images.json'), published.stdout);
    const run = await runChartBlock(at('release-images.json'));
    expect(run.code, run.stderr).toBe(0);
    expect((await readdir(join(edge.root, 'chart'))).filter((f) => !f.startsWith('.'))).toEqual(
      expect.arrayContaining(['hephaestus-1.0.0.tgz', 'v1.0.0.images.yaml']),
    );
  });
});
