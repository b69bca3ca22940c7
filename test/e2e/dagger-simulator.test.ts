// The Dagger engine simulator as the real SDK sees it: the session protocol, the API subset the module uses, and
// the queries the SDK actually sends (recorded in sdk-queries.fixture.txt).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connection, dag, ExecError, GraphQLRequestError } from '@dagger.io/dagger';
import type { ContainerID } from '@dagger.io/dagger';
import { BASE_IMAGE } from '../support/base-image.ts';
import { inSession, loadModule, startDaggerLab } from '../support/dagger-simulator/index.ts';
import type { DaggerLab, DaggerSimulator } from '../support/dagger-simulator/index.ts';
import type { PlatformRepo } from '../support/devbox/platform-repo.ts';

const FIXTURE = join(import.meta.dirname, '../support/dagger-simulator/sdk-queries.fixture.txt');
let sim: DaggerSimulator;
let repo: PlatformRepo;

let lab: DaggerLab | undefined;

beforeAll(async () => {
  lab = await startDaggerLab();
  ({ sim, repo } = lab);
});
afterAll(() => lab?.stop());

/** Ids, temp paths and commits vary per run; the shape of each query does not. */
function normalise(query: string): string {
  return query
    .replace(/sim:(\w+):\d+/g, '<$1 id>')
    .replace(new RegExp(repo.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g'), '<repo>')
    .replace(/\/tmp\/pharos-dagger-source-\w+/g, '<module folder>')
    .replace(/\/tmp\/pharos-git-out-\w+/g, '<git output folder>')
    .replace(/"[0-9a-f]{40}"/g, '"<commit>"')
    .replace(/\\"[0-9a-f]{64}\\"/g, '\\"<fingerprint>\\"')
    .replace(/"[0-9a-f]{64}"/g, '"<fingerprint>"')
    .replace(/\s+/g, ' ')
    .trim();
}

describe('the session protocol', () => {
  it('refuses a session token that does not match', async () => {
    process.env['DAGGER_SESSION_PORT'] = sim.env.DAGGER_SESSION_PORT;
    process.env['DAGGER_SESSION_TOKEN'] = 'not-the-token';
    let caught: unknown;
    await connection(async () => {
      caught = await dag.version().catch((error: unknown) => error);
    });
    expect(caught).toBeInstanceOf(Error);
    expect(String((caught as Error).message)).toMatch(/401|session token/);
  });
});

describe('containers on the real Docker Engine', () => {
  it('from, withDirectory, withMountedDirectory, withWorkdir, withEnvVariable, withSecretVariable and withExec compose like Dagger', async () => {
    const out = await inSession(sim, async () => {
      const contracts = dag.host().directory(join(repo.dir, 'contracts'));
      return dag
        .container()
        .from(BASE_IMAGE)
        .withDirectory('/copied', contracts)
        .withMountedDirectory('/mounted', dag.host().directory(join(repo.dir, 'tools')))
        .withWorkdir('/copied')
        .withEnvVariable('GREETING', 'hello')
        .withSecretVariable('TOKEN', dag.setSecret('token', 's3cret'))
        .withExec(['sh', '-c', 'echo "$GREETING $TOKEN"; pwd; ls; ls /mounted'])
        .stdout();
    });
    expect(out.split('\n')).toEqual([
      'hello s3cret',
      '/copied',
      'README.md',
      'api.json',
      'schema-version',
      'entrypoint.sh',
      '',
    ]);
  });

  it('a mount is copy-on-write: a write in the container never reaches the source directory', async () => {
    await inSession(sim, () =>
      dag
        .container()
        .from(BASE_IMAGE)
        .withMountedDirectory('/m', dag.host().directory(join(repo.dir, 'contracts')))
        .withExec(['sh', '-c', 'echo x > /m/api.json'])
        .sync(),
    );
    expect(await readFile(join(repo.dir, 'contracts/api.json'), 'utf8')).not.toBe('x\n');
  });

  it("a failing command is the SDK's ExecError with the exit code, stdout and stderr", async () => {
    const error = await inSession(sim, () =>
      dag
        .container()
        .from(BASE_IMAGE)
        .withExec(['sh', '-c', 'echo out; echo err >&2; exit 3'])
        .stdout()
        .catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(ExecError);
    expect(error).toMatchObject({ exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
  });

  it('an image that is neither local nor in a reachable registry is a GraphQL error naming it', async () => {
    const error = await inSession(sim, () =>
      dag
        .container()
        .from('127.0.0.1:9/nope:1')
        .withExec(['true'])
        .sync()
        .catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(GraphQLRequestError);
    expect((error as Error).message).toMatch(/127\.0\.0\.1:9\/nope:1/);
  });

  it('ids round-trip: a container loaded from its id is the same container', async () => {
    const label = await inSession(sim, async () => {
      const id = await dag.container().from(BASE_IMAGE).withLabel('x', 'y').id();
      return dag.loadContainerFromID(id as unknown as ContainerID).label('x');
    });
    expect(label).toBe('y');
  });
});

describe('the queries the SDK sends', () => {
  it('match the recorded fixture for build in the runtime layout (git in its container) and a file output', async () => {
    const mod = await loadModule(sim, repo.dir);
    const from = sim.queries.length;
    const id = await mod.call('build', { source: mod.directory(repo.dir), image: 'compat-web' });
    await inSession(sim, async () => {
      await dag.loadContainerFromID(String(id) as never).label('pharos.dev/fingerprint');
      await dag.directory().withNewFile('a.json', '{}').file('a.json').contents();
    });
    // The library runs its git commands in parallel: their order varies, their text does not.
    const seen = `${sim.queries.slice(from).map(normalise).sort().join('\n')}\n`;
    if (process.env['UPDATE_FIXTURES'] === '1') {
      await mkdir(join(FIXTURE, '..'), { recursive: true });
      await writeFile(FIXTURE, seen);
    }
    expect(seen).toBe(await readFile(FIXTURE, 'utf8'));
  });
});
