import { describe, expect, it } from 'vitest';
import { composeEnv, composePort, detectCompose } from '../../../scripts/lib/ports/compose.ts';
import type { Exec, ExecOptions } from '../../../scripts/lib/ports/exec.ts';

function recorder(code = 0): {
  run: Exec;
  calls: { command: string; args: readonly string[]; options?: ExecOptions }[];
} {
  const calls: { command: string; args: readonly string[]; options?: ExecOptions }[] = [];
  const run: Exec = async (command, args, options) => {
    calls.push({ command, args, options });
    return { code, stdout: Buffer.from('services: {}\n'), stderr: code === 0 ? '' : 'boom\n' };
  };
  return { run, calls };
}

const project = { project: 'app', file: '/r/docker/compose.app.yaml', env: { HEPHAESTUS_IMAGE_API: 'x' } };

describe('composePort()', () => {
  it('passes project name and file first, for v2 (`docker compose`) and v1 (`docker-compose`) alike', async () => {
    for (const command of [['docker', 'compose'], ['docker-compose']]) {
      const { run, calls } = recorder();
      const compose = composePort(command, run);
      await compose.runOnce(project, 'migrate', 1000);
      await compose.up(project, ['api', 'worker'], 1000);
      await compose.stop(project, ['worker'], 1000);
      expect(calls.map((c) => [c.command, ...c.args])).toEqual([
        [...command, '--project-name', 'app', '--file', '/r/docker/compose.app.yaml', 'run', '--rm', '-T', 'migrate'],
        [
          ...command,
          '--project-name',
          'app',
          '--file',
          '/r/docker/compose.app.yaml',
          'up',
          '--detach',
          '--no-build',
          '--remove-orphans',
          'api',
          'worker',
        ],
        [...command, '--project-name', 'app', '--file', '/r/docker/compose.app.yaml', 'stop', 'worker'],
      ]);
    }
  });
  it('throws a ComposeError quoting stderr when a command fails', async () => {
    await expect(composePort(['docker-compose'], recorder(1).run).config(project)).rejects.toThrow(
      /Cannot config project "app".*exited 1: boom/,
    );
  });
});

describe('composeEnv() and detectCompose()', () => {
  it('renders with the lock env, never with HEPHAESTUS_* or COMPOSE_* from the caller', () => {
    const env = composeEnv(
      { HEPHAESTUS_IMAGE_API: 'lock' },
      {
        PATH: '/bin',
        HEPHAESTUS_IMAGE_API: 'shell',
        HEPHAESTUS_IMAGE_X: 'y',
        COMPOSE_FILE: 'other.yaml',
        DOCKER_HOST: 'unix:///d',
      },
    );
    expect(env).toEqual({ PATH: '/bin', DOCKER_HOST: 'unix:///d', HEPHAESTUS_IMAGE_API: 'lock' });
  });
  it('prefers HEPHAESTUS_COMPOSE, then the v2 plugin, then docker-compose', async () => {
    expect(await detectCompose('podman compose', recorder().run)).toEqual(['podman', 'compose']);
    expect(await detectCompose(undefined, recorder().run)).toEqual(['docker', 'compose']);
    const v1only: Exec = async (command) => ({
      code: command === 'docker' ? 1 : 0,
      stdout: Buffer.alloc(0),
      stderr: '',
    });
    expect(await detectCompose(undefined, v1only)).toEqual(['docker-compose']);
    const none: Exec = async () => ({ code: 127, stdout: Buffer.alloc(0), stderr: '' });
    await expect(detectCompose(undefined, none)).rejects.toMatchObject({ exitCode: 2 });
  });
});
