import { describe, expect, it } from 'vitest';
import { notReady } from '../../../../scripts/lib/host/compose/up-stacks.ts';
import type { ContainerInfo } from '../../../../scripts/lib/ports/docker.ts';
import type { RenderedStack } from '../../../../scripts/lib/host/compose/compose-state.ts';

const image = (n: string) => `r/x@sha256:${n.repeat(64)}`;
const stack: RenderedStack = {
  stack: 'app',
  project: { project: 'app', file: 'compose.app.yaml', env: {} },
  services: [
    { name: 'api', image: image('1'), role: undefined, stopGraceSeconds: 10 },
    { name: 'migrate', image: image('2'), role: 'migration', stopGraceSeconds: 10 },
    { name: 'worker', image: image('3'), role: 'worker', stopGraceSeconds: 10 },
  ],
};
const container = (service: string, over: Partial<ContainerInfo> = {}): ContainerInfo => ({
  id: service,
  name: `app_${service}_1`,
  project: 'app',
  service,
  oneoff: false,
  image: image(service === 'api' ? '1' : '3'),
  status: 'running',
  running: true,
  exitCode: 0,
  health: undefined,
  startedAt: '',
  labels: {},
  ...over,
});

describe('notReady()', () => {
  it('is empty when every service but the migration runs its image and is healthy', () => {
    expect(notReady(stack, [container('api', { health: 'healthy' }), container('worker')])).toEqual([]);
  });
  it('waits for a missing, starting, exited or old-image container', () => {
    expect(notReady(stack, [container('api', { health: 'starting' })])).toEqual([
      'api: starting',
      'worker: no container',
    ]);
    expect(
      notReady(stack, [
        container('api', { image: image('9') }),
        container('worker', { running: false, status: 'exited', exitCode: 2 }),
      ]),
    ).toEqual([`api: runs ${image('9')}`, 'worker: exited (exit 2)']);
  });
  it('ignores one-off containers such as a migration run', () => {
    expect(
      notReady(stack, [container('api'), container('worker'), container('migrate', { oneoff: true, running: false })]),
    ).toEqual([]);
  });
});
