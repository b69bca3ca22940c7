import { describe, expect, it } from 'vitest';
import { loadHostConfig, HostError } from '../../../../scripts/lib/host/index.ts';
import { rejected } from '../../../support/thrown.ts';

const base = {
  HEPHAESTUS_ETC: '/nonexistent',
  HEPHAESTUS_CHANNEL: 'staging',
  HEPHAESTUS_REPOSITORY: '/srv/p.git',
  HEPHAESTUS_TRUSTED_KEYS: '/k.pem',
};

const refusal = (env: Record<string, string>) => rejected(HostError, () => loadHostConfig({ ...base, ...env }));

describe('chart settings', () => {
  it('default to the seed: release and namespace "hephaestus", profile "small", helm on PATH, a 1200 s timeout on a chart host', async () => {
    const config = await loadHostConfig({ ...base, HEPHAESTUS_STACKS: 'chart' });
    expect(config).toMatchObject({
      HEPHAESTUS_CHART_RELEASE: 'hephaestus',
      HEPHAESTUS_CHART_NAMESPACE: 'hephaestus',
      HEPHAESTUS_CHART_PROFILE: 'small',
      HEPHAESTUS_HELM: 'helm',
      HEPHAESTUS_WAIT_TIMEOUT: 1200,
    });
  });

  it('keep the Compose default timeout elsewhere and an explicit timeout on a chart host', async () => {
    expect((await loadHostConfig({ ...base, HEPHAESTUS_STACKS: 'core app' })).HEPHAESTUS_WAIT_TIMEOUT).toBe(300);
    expect(
      (await loadHostConfig({ ...base, HEPHAESTUS_STACKS: 'chart', HEPHAESTUS_WAIT_TIMEOUT: '1800' }))
        .HEPHAESTUS_WAIT_TIMEOUT,
    ).toBe(1800);
  });

  it.each([
    ['HEPHAESTUS_CHART_RELEASE', 'Hephaestus'],
    ['HEPHAESTUS_CHART_RELEASE', 'a'.repeat(54)],
    ['HEPHAESTUS_CHART_NAMESPACE', 'ns.with.dots'],
    ['HEPHAESTUS_CHART_PROFILE', '../etc/passwd'],
    ['HEPHAESTUS_CHART_PROFILE', ' , '],
    ['HEPHAESTUS_HELM', '--kubeconfig=/tmp/x'],
    ['HEPHAESTUS_WAIT_TIMEOUT', '20m'],
  ])('refuse %s=%j with exit 2, naming the variable and the value', async (variable, value) => {
    const error = await refusal({ HEPHAESTUS_STACKS: 'chart', [variable]: value });
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(variable);
    expect(error.message).toContain(JSON.stringify(value));
  });

  it('refuse the chart beside a Compose stack', async () => {
    const error = await refusal({ HEPHAESTUS_STACKS: 'core chart' });
    expect(error.message).toContain('chart takes no other stack');
  });
});
