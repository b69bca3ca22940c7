import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { exec, execOk } from '../../scripts/lib/ports/index.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const NODE = join(ROOT, 'node_modules/.bin/node');
const SCRIPT = join(ROOT, 'scripts/check-platform-gitops.ts');
const EXAMPLE = join(ROOT, 'examples/platform');

let base = '';
let template = '';
let n = 0;

const run = (...args: string[]) => exec(NODE, [SCRIPT, ...args], { timeoutMs: 60_000 });
const git = (dir: string, ...args: string[]) =>
  execOk(exec, 'git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args]);

/** A fresh git copy of the example platform, committed clean. */
async function copy(): Promise<string> {
  const dir = join(base, `copy-${++n}`);
  await cp(template, dir, { recursive: true });
  return dir;
}

async function edit(dir: string, path: string, change: (text: string) => string): Promise<void> {
  const file = join(dir, path);
  const text = await readFile(file, 'utf8').catch(() => '');
  await writeFile(file, change(text));
}

/** 1-based line of the first line containing `needle`. */
async function lineOf(dir: string, path: string, needle: string): Promise<number> {
  const lines = (await readFile(join(dir, path), 'utf8')).split('\n');
  const index = lines.findIndex((l) => l.includes(needle));
  if (index < 0) throw new Error(`"${needle}" is not in ${path}`);
  return index + 1;
}

interface JsonReport {
  schema: number;
  findings: { rule: string; severity: string; image: string; file: string; line: number; message: string }[];
}

async function checkJson(
  dir: string,
  ...extra: string[]
): Promise<{ code: number; report: JsonReport; stderr: string }> {
  const result = await run('--repo', dir, '--json', ...extra);
  return { code: result.code, report: JSON.parse(result.stdout.toString('utf8')) as JsonReport, stderr: result.stderr };
}

const insertAfter = (needle: string, line: string) => (text: string) => text.replace(needle, `${needle}\n${line}`);

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'check-e2e-'));
  template = join(base, 'template');
  await cp(EXAMPLE, template, { recursive: true });
  await git(template, 'init', '-q', '-b', 'main');
  await git(template, 'add', '-A');
  await git(template, 'commit', '-q', '-m', 'example platform');
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('check-platform-gitops on the example platform', () => {
  it('passes the example platform as shipped: exit 0, a summary line, one log line per step', async () => {
    const result = await run('--repo', EXAMPLE);
    expect(result.stdout.toString('utf8')).toBe(
      'check: 0 errors, 0 warnings in 5 catalogue images (source worktree)\n',
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^check: step=list .*files=\d+/m);
    expect(result.stderr).toMatch(/^check: step=manifests .*applications=3/m);
  });

  it('passes a git copy of it, from the working tree and from the commit', async () => {
    const dir = await copy();
    expect(await checkJson(dir)).toMatchObject({ code: 0, report: { schema: 1, findings: [] } });
    expect(await checkJson(dir, '--rev', 'HEAD')).toMatchObject({ code: 0, report: { schema: 1, findings: [] } });
  });
});

interface Seed {
  readonly rule: string;
  readonly severity: 'error' | 'warning';
  readonly image: string;
  readonly file: string;
  readonly needle: string;
  seed(dir: string): Promise<void>;
}

const CATALOGUE = 'gitops/manifests/images.yaml';
const API_DOCKERFILE = 'services/api/Dockerfile';

const seeds: Seed[] = [
  {
    rule: 'copy-outside-inputs',
    severity: 'error',
    image: 'api',
    file: API_DOCKERFILE,
    needle: 'COPY apps/compat/src/run.sh',
    seed: (dir) =>
      edit(
        dir,
        API_DOCKERFILE,
        insertAfter('COPY services/api/src/ /app/src/', 'COPY apps/compat/src/run.sh /app/compat.sh'),
      ),
  },
  {
    rule: 'copy-excluded',
    severity: 'error',
    image: 'api',
    file: API_DOCKERFILE,
    needle: 'COPY services/api/README.md',
    seed: (dir) =>
      edit(
        dir,
        API_DOCKERFILE,
        insertAfter('COPY services/api/src/ /app/src/', 'COPY services/api/README.md /app/README.md'),
      ),
  },
  {
    rule: 'missing-input',
    severity: 'error',
    image: 'api',
    file: CATALOGUE,
    needle: 'services/api/assets',
    seed: (dir) =>
      edit(dir, CATALOGUE, (t) =>
        t.replace('inputs: [services/api, contracts', 'inputs: [services/api, services/api/assets, contracts'),
      ),
  },
  {
    rule: 'missing-dockerfile',
    severity: 'error',
    image: 'migrate',
    file: CATALOGUE,
    needle: 'services/migrate/Dockerfile',
    seed: (dir) =>
      edit(dir, CATALOGUE, (t) =>
        t.replace(
          'dockerfile: services/worker/Dockerfile\n    target: migrate',
          'dockerfile: services/migrate/Dockerfile\n    target: migrate',
        ),
      ),
  },
  {
    rule: 'missing-context',
    severity: 'error',
    image: 'compat-admin',
    file: CATALOGUE,
    needle: 'context: apps/compat-admin',
    seed: (dir) =>
      edit(dir, CATALOGUE, (t) =>
        t.replace(/(compat-admin:\n(?:.*\n){2})    context: apps\/compat/, '$1    context: apps/compat-admin'),
      ),
  },
  {
    rule: 'uncatalogued-image',
    severity: 'error',
    image: 'pharos/report',
    file: 'gitops/manifests/pharos/report-cronjob.yaml',
    needle: 'image: pharos/report',
    seed: (dir) =>
      edit(
        dir,
        'gitops/manifests/pharos/report-cronjob.yaml',
        () =>
          'apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: report\nspec:\n  schedule: "0 3 * * *"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: Never\n          containers:\n            - name: report\n              image: pharos/report:1.4\n',
      ),
  },
  {
    rule: 'unknown-application',
    severity: 'error',
    image: 'compat-web',
    file: CATALOGUE,
    needle: 'application: themelio\n',
    seed: (dir) =>
      edit(dir, CATALOGUE, (t) =>
        t.replace(/(compat-web:\n.*\n)    application: themelio-compat/, '$1    application: themelio'),
      ),
  },
  {
    rule: 'remote-add',
    severity: 'warning',
    image: 'api',
    file: API_DOCKERFILE,
    needle: 'ADD https://',
    seed: (dir) =>
      edit(
        dir,
        API_DOCKERFILE,
        insertAfter('COPY services/api/src/ /app/src/', 'ADD https://certs.example.com/ca.pem /etc/ssl/certs/ca.pem'),
      ),
  },
  {
    rule: 'filtered-input',
    severity: 'warning',
    image: 'api',
    file: '.gitattributes',
    needle: 'filter=crypt',
    seed: (dir) =>
      edit(dir, '.gitattributes', () => '# secrets are encrypted at rest\nservices/api/src/*.sh filter=crypt\n'),
  },
  {
    rule: 'unused-image',
    severity: 'warning',
    image: 'compat-admin',
    file: CATALOGUE,
    needle: 'image: pharos/compat-admin',
    seed: async (dir) => {
      await rm(join(dir, 'gitops/manifests/themelio-compat/admin.yaml'));
      await edit(dir, 'gitops/manifests/themelio-compat/kustomization.yaml', (t) =>
        t.replace('  - admin.yaml\n', '').replace('  - name: pharos/compat-admin\n    newTag: local\n', ''),
      );
    },
  },
];

describe('check-platform-gitops finds each seeded defect, on its line, and nothing else', () => {
  for (const s of seeds) {
    it(`${s.rule}: reported as ${s.severity} for "${s.image}" at ${s.file}, exit ${s.severity === 'error' ? 1 : 0}`, async () => {
      const dir = await copy();
      await s.seed(dir);
      const needle = s.needle.endsWith('\n') ? s.needle.slice(0, -1) : s.needle;
      const line = await lineOf(dir, s.file, needle);
      const { code, report } = await checkJson(dir);
      expect(
        report.findings.map(({ rule, severity, image, file, line: l }) => ({ rule, severity, image, file, line: l })),
      ).toEqual([{ rule: s.rule, severity: s.severity, image: s.image, file: s.file, line }]);
      expect(code).toBe(s.severity === 'error' ? 1 : 0);
    });
  }
});

describe('check-platform-gitops: sources, output and exit status', () => {
  it('--rev checks the commit, not the working tree', async () => {
    const dir = await copy();
    await edit(dir, API_DOCKERFILE, insertAfter('COPY services/api/src/ /app/src/', 'COPY docs/ /app/docs/'));
    const at = await lineOf(dir, API_DOCKERFILE, 'COPY docs/');
    await git(dir, 'commit', '-q', '-am', 'copy docs');
    await git(dir, 'revert', '--no-edit', 'HEAD');
    const head = await checkJson(dir, '--rev', 'HEAD~1');
    expect(head.report.findings.map((f) => `${f.rule} ${f.file}:${f.line}`)).toEqual([
      `copy-outside-inputs ${API_DOCKERFILE}:${at}`,
    ]);
    expect(head.code).toBe(1);
    expect((await checkJson(dir)).code).toBe(0);
  });

  it('prints the readable report grouped by image with file:line rule message', async () => {
    const dir = await copy();
    await edit(dir, API_DOCKERFILE, insertAfter('COPY services/api/src/ /app/src/', 'COPY docs/ /app/docs/'));
    const at = await lineOf(dir, API_DOCKERFILE, 'COPY docs/');
    const result = await run('--repo', dir);
    const lines = result.stdout.toString('utf8').split('\n');
    expect(lines[0]).toBe('api:');
    expect(lines[1]).toBe(
      `  services/api/Dockerfile:${at} copy-outside-inputs COPY source "docs/" reads "docs", not at or under any input of "api" ("services/api", "contracts", "tools/entrypoint.sh")`,
    );
    expect(lines[2]).toBe('check: 1 error, 0 warnings in 5 catalogue images (source worktree)');
    expect(result.code).toBe(1);
  });

  it('exits 2 with one clear error for an unreadable catalogue', async () => {
    const dir = await copy();
    await edit(dir, CATALOGUE, (t) => t.replace('context: .', 'context: ../outside'));
    const result = await run('--repo', dir);
    expect(result.code).toBe(2);
    expect(result.stdout.toString('utf8')).toBe('');
    expect(result.stderr).toContain(
      'check-platform-gitops: error [invalid]: Cannot load catalogue "gitops/manifests/images.yaml"',
    );
    expect(result.stderr).toContain('images.api.context');
  });

  it('treats a nested repository as fingerprint does: outside the inputs it is no file of the tree, under one both refuse it', async () => {
    const dir = await copy();
    const nested = async (path: string) => {
      await mkdir(join(dir, path), { recursive: true });
      await writeFile(join(dir, path, 'README'), 'a clone of something else\n');
      await git(join(dir, path), 'init', '-q');
      await git(join(dir, path), 'add', '-A');
      await git(join(dir, path), 'commit', '-q', '-m', 'nested');
    };
    const fingerprint = (...args: string[]) =>
      exec(NODE, [join(ROOT, 'scripts/fingerprint.ts'), '--repo', dir, ...args], { timeoutMs: 60_000 });
    // Untracked, in the build context "." of api and under gitops/, where neither command looks for inputs.
    await nested('vendor/clone');
    await nested('gitops/upstream-charts');
    expect(await checkJson(dir)).toMatchObject({ code: 0, report: { findings: [] } });
    expect((await fingerprint()).code).toBe(0);
    // Committed as a gitlink (what `git add` makes of it) and read from the commit: the same.
    await git(dir, 'add', 'vendor/clone');
    await git(dir, 'commit', '-q', '-m', 'vendor a clone');
    expect(await checkJson(dir, '--rev', 'HEAD')).toMatchObject({ code: 0, report: { findings: [] } });
    expect((await fingerprint('--rev', 'HEAD')).code).toBe(0);
    // Under an input of api (services/api): both refuse it with the same error and exit 2.
    await nested('services/api/vendored');
    const [checked, fingerprinted] = [await run('--repo', dir), await fingerprint()];
    const refusal = 'Cannot fingerprint "services/api/vendored": submodules and nested repositories are not supported';
    expect([checked.code, fingerprinted.code]).toEqual([2, 2]);
    expect(checked.stderr).toContain(`check-platform-gitops: error [submodule]: ${refusal}`);
    expect(fingerprinted.stderr).toContain(`fingerprint: error [submodule]: ${refusal}`);
  });

  it('exits 2 for a usage error and for a folder that does not exist', async () => {
    expect((await run('--bogus')).code).toBe(2);
    const missing = await run('--repo', join(base, 'nope'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such folder');
  });
});

describe('check-platform-gitops on a monorepo laid out its own way', () => {
  it('follows an Application whose source.path leaves gitops/manifests/ and finds the uncatalogued image its kustomize base deploys', async () => {
    const dir = await copy();
    await edit(dir, 'gitops/apps/pharos.yaml', (t) =>
      t.replace('path: gitops/manifests/pharos', 'path: ./deploy/pharos/overlays/prod/'),
    );
    await cp(join(dir, 'gitops/manifests/pharos'), join(dir, 'deploy/pharos/base'), { recursive: true });
    await mkdir(join(dir, 'deploy/pharos/overlays/prod'), { recursive: true });
    await edit(dir, 'deploy/pharos/overlays/prod/kustomization.yaml', () => 'resources:\n  - ../../base\n');
    await edit(
      dir,
      'deploy/pharos/base/report.yaml',
      () =>
        'apiVersion: batch/v1\nkind: Job\nmetadata: {name: report}\nspec:\n  template:\n    spec:\n      containers:\n        - name: report\n          image: pharos/report:1\n',
    );
    await edit(dir, 'deploy/pharos/base/kustomization.yaml', (t) =>
      t.replace('resources:\n', 'resources:\n  - report.yaml\n'),
    );
    const { code, report } = await checkJson(dir);
    expect(report.findings.map((f) => `${f.rule} ${f.image} ${f.file}:${f.line}`)).toEqual([
      'uncatalogued-image pharos/report deploy/pharos/base/report.yaml:9',
    ]);
    expect(code).toBe(1);
  });

  it('renders a kustomization with patches with the real kubectl kustomize and finds the image only a patch adds', async () => {
    const dir = await copy();
    const kustomization = 'gitops/manifests/themelio-compat/kustomization.yaml';
    await edit(
      dir,
      kustomization,
      (t) =>
        `${t}patches:\n  - target: {kind: Deployment, name: compat-web}\n    patch: |-\n      - op: add\n        path: /spec/template/spec/containers/-\n        value: {name: sidecar, image: "pharos/sidecar:1"}\n`,
    );
    const { code, report } = await checkJson(dir);
    expect(report.findings.map((f) => `${f.rule} ${f.image} ${f.file}:${f.line} ${f.message}`)).toEqual([
      `uncatalogued-image pharos/sidecar ${kustomization}:1 kubectl kustomize output image "pharos/sidecar:1" has an owned prefix but no catalogue entry builds "pharos/sidecar": delivery would never update it`,
    ]);
    expect(code).toBe(1);
  });

  it('without kubectl on the machine the example still passes: the step log says its kustomization with patches was read, not rendered', async () => {
    const bin = join(base, 'bin-git-only');
    await mkdir(bin, { recursive: true });
    await symlink('/usr/bin/git', join(bin, 'git')).catch(() => {});
    const result = await exec(NODE, [SCRIPT, '--repo', EXAMPLE], {
      timeoutMs: 60_000,
      env: { ...process.env, PATH: bin },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.toString('utf8')).toBe(
      'check: 0 errors, 0 warnings in 5 catalogue images (source worktree)\n',
    );
    expect(result.stderr).toMatch(/^check: step=render skipped=gitops\/root reason="kubectl is not installed/m);
  });

  it('a checkout without a catalogue exits 2 saying where to write one and how to point at the example', async () => {
    const dir = join(base, 'no-catalogue');
    await cp(join(template, 'services'), join(dir, 'services'), { recursive: true });
    const result = await run('--repo', dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `check-platform-gitops: error [missing-catalogue]: Cannot load catalogue: "gitops/manifests/images.yaml" is not in "${dir}": write one (docs/adopting.md), or pass the repository that has it (--repo DIR; make … REPO=DIR; the example: examples/platform)\n`,
    );
  });

  it('make check and make fingerprint default REPO to this checkout, not to the example', async () => {
    for (const target of ['check', 'fingerprint']) {
      const dry = await exec('make', ['-n', '-s', '-C', ROOT, target], { timeoutMs: 30_000 });
      expect(dry.stdout.toString('utf8')).toContain(
        `scripts/${target === 'check' ? 'check-platform-gitops' : 'fingerprint'}.ts --repo . `,
      );
    }
  });
});
