import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCatalogue } from '../../../../scripts/lib/catalogue/parse-catalogue.ts';
import {
  buildArgs,
  dockerRuntime,
  findByLease,
  runArgs,
} from '../../../../scripts/lib/takeover/runtime/docker-runtime.ts';
import type { RuntimeRequest } from '../../../../scripts/lib/takeover/runtime/local-runtime.ts';

const catalogue = parseCatalogue(
  `platform: linux/amd64
images:
  compat-web: {image: pharos/compat-web, application: themelio-compat, context: apps/compat, dockerfile: apps/compat/Dockerfile, target: runtime, args: {APP: web, FLAVOUR: x}, inputs: [apps/compat], takeover: {runtime: docker, port: 8080}}
`,
  'gitops/manifests/images.yaml',
);
const request: RuntimeRequest = {
  image: 'compat-web',
  command: [],
  cwd: '/work/checkout',
  env: { GREETING: 'secret value', PATH: '/app/bin', 'bad name': 'x' },
  logFile: '/tmp/log',
  entry: catalogue.images[0]!,
  port: 8080,
  aliases: ['compat-web', 'compat-web.themelio-compat.svc.cluster.local'],
  network: 'pharos-takeover-dev',
  labels: { 'pharos.dev/takeover-target': 'dev' },
};

describe('the Docker runtime', () => {
  it('builds the catalogue entry from the working tree: its Dockerfile, target, args and platform', () => {
    expect(buildArgs(request, 'pharos-takeover/dev/compat-web:latest')).toEqual([
      'build',
      '--force-rm',
      '--file',
      '/work/checkout/apps/compat/Dockerfile',
      '--platform',
      'linux/amd64',
      '--tag',
      'pharos-takeover/dev/compat-web:latest',
      '--target',
      'runtime',
      '--build-arg',
      'APP=web',
      '--build-arg',
      'FLAVOUR=x',
      '--label',
      'pharos.dev/takeover-target=dev',
      '/work/checkout/apps/compat',
    ]);
  });

  it('runs with the Services names as network aliases, the port on loopback only, and environment values kept out of argv', () => {
    const args = runArgs(request, 'tag', 'pharos-takeover-dev-compat-web-1');
    expect(args).toEqual(
      expect.arrayContaining([
        '--network',
        'pharos-takeover-dev',
        '--network-alias',
        'compat-web.themelio-compat.svc.cluster.local',
        '--publish',
        '127.0.0.1::8080',
      ]),
    );
    expect(args.join(' ')).not.toContain('secret value');
    expect(args).toContain('GREETING');
    // The docker CLI needs its own PATH: that one travels by value; a name Docker cannot take is dropped.
    expect(args).toContain('PATH=/app/bin');
    expect(args.join(' ')).not.toContain('bad name');
    expect(args.at(-1)).toBe('tag');
  });

  it("on the network of Telepresence's daemon container: no alias, nothing published (Docker refuses both there)", () => {
    const args = runArgs({ ...request, network: 'container:tp-dev-pharos-cn' }, 'tag', 'n');
    expect(args.join(' ')).toContain('--network container:tp-dev-pharos-cn');
    expect(args).not.toContain('--network-alias');
    expect(args).not.toContain('--publish');
  });

  it('refuses to share the network of a daemon container that is not running, before any docker run', async () => {
    const calls: string[][] = [];
    const runtime = dockerRuntime(async (_cmd, args) => {
      calls.push([...args]);
      if (args[0] === 'container') return { code: 0, stdout: Buffer.from('false\n'), stderr: '' };
      return { code: 0, stdout: Buffer.from(''), stderr: '' };
    });
    const dir = await mkdtemp(join(tmpdir(), 'docker-runtime-'));
    await mkdir(join(dir, 'apps/compat'), { recursive: true });
    await writeFile(join(dir, 'apps/compat/Dockerfile'), 'FROM scratch\n');
    try {
      await expect(
        runtime.start({ ...request, cwd: dir, logFile: join(dir, 'log'), network: 'container:tp-dev-pharos-cn' }),
      ).rejects.toThrow('the container "tp-dev-pharos-cn" whose network it shares is not running');
      expect(calls.map((c) => c[0])).toEqual(['build', 'container']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a restart reuses the loopback port, so the replacement keeps routing to it', () => {
    expect(runArgs({ ...request, hostPort: 41234 }, 'tag', 'n')).toContain('127.0.0.1:41234:8080');
  });

  it('labels the container (not the image) with its lease, holder and workloads, so any clean-up finds it', () => {
    const containerLabels = {
      'pharos.dev/takeover-lease': '2026-10-14T12:00:00Z|ws:/src/a',
      'pharos.dev/takeover-workloads': 'Deployment/themelio-compat/compat-web',
    };
    const run = runArgs({ ...request, containerLabels }, 'tag', 'n');
    expect(run.join(' ')).toContain('--label pharos.dev/takeover-lease=2026-10-14T12:00:00Z|ws:/src/a');
    expect(run.join(' ')).toContain('--label pharos.dev/takeover-workloads=Deployment/themelio-compat/compat-web');
    expect(buildArgs({ ...request, containerLabels }, 'tag').join(' ')).not.toContain('takeover-lease');
  });

  it("finds a lease's containers by label, running or stopped, and reads each line docker prints", async () => {
    const calls: string[][] = [];
    const found = await findByLease('L|ws:/src/a', async (_cmd, args) => {
      calls.push([...args]);
      return {
        code: 0,
        stdout: Buffer.from('abc123\tpharos-takeover-dev-api-1\tapi\tpharos-takeover/dev/api:latest\n'),
        stderr: '',
      };
    });
    expect(calls[0]).toEqual(
      expect.arrayContaining(['ps', '--all', '--filter', 'label=pharos.dev/takeover-lease=L|ws:/src/a']),
    );
    expect(found).toEqual([
      {
        image: 'api',
        runtime: 'docker',
        container: 'abc123',
        name: 'pharos-takeover-dev-api-1',
        command: ['pharos-takeover/dev/api:latest'],
      },
    ]);
  });
});
