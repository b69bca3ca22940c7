import { describe, expect, it } from 'vitest';
import { ChartError } from '../../../../scripts/lib/host/chart/chart-error.ts';
import type { HelmMetadata, HelmStatus } from '../../../../scripts/lib/host/chart/helm-output.ts';
import { planUpgrade } from '../../../../scripts/lib/host/chart/upgrade-plan.ts';
import type { UpgradeInput } from '../../../../scripts/lib/host/chart/upgrade-plan.ts';

const C = (c: string) => c.repeat(40);
const PINS = { HEPHAESTUS_IMAGE_API: `ghcr.io/o/api@sha256:${'a'.repeat(64)}` };
const v2 = { name: 'v2.0.0', release: 'v2.0.0', commit: C('2') };

/** What `helm status -o json` and `helm get metadata -o json` say about the last revision (7). */
function release(
  version: string,
  config: Record<string, unknown> | undefined,
  state: HelmStatus['info']['status'] = 'deployed',
): { status: HelmStatus; metadata: HelmMetadata } {
  return {
    status: {
      name: 'hephaestus',
      info: { status: state },
      version: 7,
      namespace: 'hephaestus',
      ...(config === undefined ? {} : { config }),
    },
    metadata: {
      name: 'hephaestus',
      chart: 'hephaestus',
      version,
      appVersion: version,
      namespace: 'hephaestus',
      revision: 7,
      status: state,
      deployedAt: '2026-08-25T10:00:00Z',
    },
  };
}
const input = (over: Partial<UpgradeInput>): UpgradeInput => ({
  status: undefined,
  metadata: undefined,
  recorded: undefined,
  target: v2,
  chartVersion: '2.0.0',
  pins: PINS,
  release: 'hephaestus',
  ...over,
});
const stopped = { server: { replicas: 0 }, worker: { replicas: 0 } };

function refusal(over: Partial<UpgradeInput>): ChartError {
  try {
    planUpgrade(input(over));
  } catch (error) {
    expect(error).toBeInstanceOf(ChartError);
    return error as ChartError;
  }
  throw new Error('expected planUpgrade() to refuse');
}

describe('planUpgrade(): a plain upgrade', () => {
  it('installs a first release, and upgrades within a major version with rollback on failure', () => {
    expect(planUpgrade(input({}))).toEqual({ kind: 'upgrade', cutover: false });
    expect(
      planUpgrade(
        input({
          ...release('2.0.0', { release: { name: 'v2.0.0', commit: C('1') } }),
          target: { name: 'v2.1.0', release: 'v2.1.0', commit: C('3') },
          chartVersion: '2.1.0',
          recorded: 'v2.0.0',
        }),
      ),
    ).toEqual({ kind: 'upgrade', cutover: false });
  });

  it('a lower major version is no cutover (a rollback the channel allowed)', () => {
    expect(planUpgrade(input({ ...release('3.0.0', {}) }))).toEqual({ kind: 'upgrade', cutover: false });
  });

  it('a commit target is never a cutover: it has no release version', () => {
    expect(
      planUpgrade(
        input({
          ...release('1.0.0', {}),
          target: { name: C('c'), release: undefined, commit: C('c') },
          chartVersion: '2.0.0',
        }),
      ),
    ).toEqual({ kind: 'upgrade', cutover: false });
  });

  it('an installed chart version it cannot read is no cutover', () => {
    expect(planUpgrade(input({ ...release('latest', {}) }))).toEqual({ kind: 'upgrade', cutover: false });
  });
});

describe('planUpgrade(): a cutover to a new major version', () => {
  it('goes on when the installed values run no server and no worker', () => {
    expect(planUpgrade(input({ ...release('1.4.2', stopped) }))).toEqual({ kind: 'upgrade', cutover: true });
    expect(planUpgrade(input({ ...release('v1.4.2', stopped) }))).toEqual({ kind: 'upgrade', cutover: true });
  });

  it('compares major versions as numbers: 9 to 10 is a cutover', () => {
    expect(() =>
      planUpgrade(
        input({
          ...release('9.3.0', {}),
          target: { name: 'v10.0.0', release: 'v10.0.0', commit: C('a') },
          chartVersion: '10.0.0',
        }),
      ),
    ).toThrow(/^Cannot cut over release "hephaestus" from 9\.3\.0 to 10\.0\.0/);
    expect(
      planUpgrade(
        input({
          ...release('9.3.0', stopped),
          target: { name: 'v10.0.0', release: 'v10.0.0', commit: C('a') },
          chartVersion: '10.0.0',
        }),
      ),
    ).toEqual({ kind: 'upgrade', cutover: true });
  });

  it('reads the major version only at the start of the installed chart version', () => {
    expect(planUpgrade(input({ ...release('release-1.0.0', {}) }))).toEqual({ kind: 'upgrade', cutover: false });
  });

  it.each([
    [
      'a running server',
      { server: { replicas: 1 }, worker: { replicas: 0 } },
      'run 1 server and 0 worker replicas',
      { server: 1, worker: 0 },
    ],
    [
      'a running worker',
      { server: { replicas: 0 }, worker: { replicas: 2 } },
      'run 0 server and 2 worker replicas',
      { server: 0, worker: 2 },
    ],
    [
      'the chart defaults (no replicas set)',
      {},
      'run default server and default worker replicas',
      { server: undefined, worker: undefined },
    ],
    [
      'replicas that are not numbers',
      { server: { replicas: '0' }, worker: { replicas: null } },
      'run default server and default worker replicas',
      { server: undefined, worker: undefined },
    ],
  ])('refuses (exit 3) while the installed values run %s', (_what, config, says, details) => {
    const error = refusal({ ...release('1.4.2', config) });
    expect(error).toMatchObject({ code: 'cutover', exitCode: 3, details });
    expect(error.message).toBe(
      `Cannot cut over release "hephaestus" from 1.4.2 to 2.0.0: the installed values ${says}; stop them with the source chart first (docs/chart-host.md)`,
    );
  });

  it('refuses when the release has no values at all (Helm omits config): the defaults run a server', () => {
    expect(refusal({ ...release('1.4.2', undefined) }).details).toEqual({ server: undefined, worker: undefined });
  });
});

describe('planUpgrade(): a release never follows a commit chart by itself', () => {
  it('refuses (exit 3) to move a release that runs a commit to a release target', () => {
    const error = refusal({ ...release('2.0.0', { release: { name: C('c'), commit: C('c') } }) });
    expect(error).toMatchObject({ code: 'cutover', exitCode: 3, details: { running: C('c') } });
    expect(error.message).toBe(
      `Cannot move release "hephaestus" from commit ${C('c')} to v2.0.0 by itself: a commit chart has no release version; apply the verified target by hand first (docs/chart-host.md "From a commit channel to a release")`,
    );
  });

  it('lets a commit target follow a commit, and a release follow a release', () => {
    expect(
      planUpgrade(
        input({
          ...release('2.0.0', { release: { name: C('c') } }),
          target: { name: C('d'), release: undefined, commit: C('d') },
        }),
      ),
    ).toEqual({ kind: 'upgrade', cutover: false });
    expect(planUpgrade(input({ ...release('2.0.0', { release: { name: 'v1.9.0' } }) }))).toEqual({
      kind: 'upgrade',
      cutover: false,
    });
  });

  it('reads only a full commit as a commit', () => {
    expect(planUpgrade(input({ ...release('2.0.0', { release: { name: C('c').slice(0, 12) } }) }))).toEqual({
      kind: 'upgrade',
      cutover: false,
    });
    expect(planUpgrade(input({ ...release('2.0.0', { release: { name: 7 } }) }))).toEqual({
      kind: 'upgrade',
      cutover: false,
    });
  });
});

describe('planUpgrade(): Helm finished before the record was written', () => {
  const done = release('2.0.0', { release: { name: 'v2.0.0', commit: C('2') }, images: PINS, server: { replicas: 1 } });

  it('completes the record only, never running a cutover (and its migration) twice', () => {
    expect(
      planUpgrade(
        input({
          ...done,
          recorded: 'v1.4.2',
        }),
      ),
    ).toEqual({ kind: 'already-deployed' });
  });

  it('upgrades again when the record already names the target (a repair), or there is no record', () => {
    expect(planUpgrade(input({ ...done, recorded: 'v2.0.0' }))).toEqual({ kind: 'upgrade', cutover: false });
    expect(planUpgrade(input({ ...done, recorded: undefined }))).toEqual({ kind: 'upgrade', cutover: false });
  });

  it.each([
    ["Helm's release is not deployed", { ...done, status: { ...done.status, info: { status: 'failed' as const } } }],
    ['another chart version', { ...done, metadata: { ...done.metadata, version: '2.0.1' } }],
    [
      'metadata of another revision (a write between the two reads)',
      { ...done, metadata: { ...done.metadata, revision: 8 } },
    ],
    ['no metadata', { ...done, metadata: undefined }],
    ['another commit', release('2.0.0', { release: { name: 'v2.0.0', commit: C('9') }, images: PINS })],
    [
      'other pins',
      release('2.0.0', { release: { name: 'v2.0.0', commit: C('2') }, images: { HEPHAESTUS_IMAGE_API: 'x' } }),
    ],
    ['no values', release('2.0.0', undefined)],
  ])('runs the upgrade when %s', (_what, helm) => {
    expect(planUpgrade(input({ ...helm, recorded: 'v1.9.0' }))).toEqual({ kind: 'upgrade', cutover: false });
  });

  it('runs the upgrade when Helm knows no release', () => {
    expect(planUpgrade(input({ status: undefined, recorded: 'v1.9.0' }))).toEqual({ kind: 'upgrade', cutover: false });
  });
});
