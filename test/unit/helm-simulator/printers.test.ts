// The Helm simulator prints, byte for byte, what Helm 4 prints for the releases its own tests mock: each case rebuilds
// the release of the golden file's test (helm/helm@e9b85e4 pkg/release/v1/mock.go Mock, pkg/cmd/*_test.go) and
// compares with the golden file (test/support/contracts/helm/).
import { describe, expect, it } from 'vitest';
import { helmGolden, helmGoldenSource } from '../../support/contracts/helm/sources.ts';
import {
  historyJson,
  historyTable,
  listJson,
  metadataJson,
  metadataTable,
  statusJson,
  statusTable,
  upgradeTable,
} from '../../support/helm-simulator/printers.ts';
import type { Release } from '../../support/helm-simulator/release-store.ts';

const MOCK_DATE = '1977-09-02T22:04:05Z'; // time.Unix(242085845, 0).UTC()
const fooChart = {
  metadata: {
    name: 'foo',
    version: '0.1.0-beta.1',
    appVersion: '1.0',
    annotations: { supported: 'true', category: 'web-apps' },
    dependencies: [
      {
        name: 'cool-plugin',
        version: '1.0.0',
        repository: 'https://coolplugin.io/charts',
        condition: 'coolPlugin.enabled',
        enabled: true,
      },
      { name: 'crds', version: '2.7.1', repository: '', condition: 'crds.enabled' },
    ],
  },
};
/** release.Mock: first and last deployed at MOCK_DATE, "Release mock", chart foo-0.1.0-beta.1. */
const mock = (
  name: string,
  version: number,
  status: Release['info']['status'],
  over: Partial<Release> = {},
): Release => ({
  name,
  info: {
    first_deployed: MOCK_DATE,
    last_deployed: MOCK_DATE,
    description: 'Release mock',
    status,
    notes: 'Some mock release notes!',
  },
  chart: fooChart,
  manifest: 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: fixture\n',
  version,
  namespace: 'default',
  ...over,
});
/** status_test.go releasesMockWithStatus: a release with only a name, a namespace, a last-deployed date and info. */
const statusMock = (info: Partial<Release['info']>): Release => ({
  name: 'flummoxed-chickadee',
  info: { last_deployed: '2016-01-16T00:00:00Z', status: 'deployed', ...info },
  chart: { metadata: {} },
  version: 0,
  namespace: 'default',
});

describe('the Helm simulator prints what Helm 4 prints', () => {
  it(`status -o json strips the chart (${helmGoldenSource('status.json')})`, () => {
    expect(statusJson(statusMock({ notes: 'release notes' }))).toBe(helmGolden('status.json'));
    expect(statusJson(statusMock({}))).toBe(helmGolden('status-with-resources.json'));
  });

  it(`status as a table (${helmGoldenSource('status.txt')})`, () => {
    expect(statusTable(statusMock({}))).toBe(helmGolden('status.txt'));
  });

  it(`get metadata, JSON and table (${helmGoldenSource('get-metadata.json')})`, () => {
    const r = mock('thomas-guide', 1, 'deployed', { labels: { key1: 'value1' } });
    expect(metadataJson(r)).toBe(helmGolden('get-metadata.json'));
    expect(metadataTable(r)).toBe(helmGolden('get-metadata.txt'));
  });

  it(`history, JSON and table, with a rollback revision (${helmGoldenSource('history-with-rollback.json')})`, () => {
    const four = [1, 2, 3, 4].map((v) => mock('angry-bird', v, v === 4 ? 'deployed' : 'superseded'));
    expect(historyTable(four, 256)).toBe(helmGolden('history.txt'));
    expect(historyJson(four.slice(2), 256)).toBe(helmGolden('history.json'));
    expect(historyJson(four, 2)).toBe(helmGolden('history.json'));
    const rolled = [
      mock('angry-bird', 1, 'superseded', {
        info: { ...mock('', 1, 'superseded').info, description: 'Install complete' },
      }),
      mock('angry-bird', 2, 'superseded', {
        info: { ...mock('', 2, 'superseded').info, description: 'Upgrade complete' },
      }),
      mock('angry-bird', 3, 'deployed', {
        info: { ...mock('', 3, 'deployed').info, description: 'Rollback to 1', rollback_revision: 1 },
      }),
    ];
    expect(historyJson(rolled, 256)).toBe(helmGolden('history-with-rollback.json'));
  });

  it(`list -o json (${helmGoldenSource('list-json.txt')})`, () => {
    const r: Release = {
      name: 'test-release',
      info: { last_deployed: '2016-01-16T00:00:00Z', status: 'deployed' },
      chart: { metadata: { name: 'test-chart', version: '1.0.0', appVersion: '0.0.1' } },
      version: 1,
      namespace: 'default',
    };
    expect(listJson([r])).toBe(helmGolden('list-json.txt'));
  });

  it(`install and upgrade as tables (${helmGoldenSource('upgrade.txt')})`, () => {
    const upgraded = mock('funny-bunny', 3, 'deployed', {
      info: { ...mock('', 3, 'deployed').info, description: 'Upgrade complete', notes: undefined },
    });
    expect(upgradeTable(upgraded, false)).toBe(helmGolden('upgrade.txt'));
    const installed = mock('funny-bunny', 3, 'deployed', {
      info: { ...mock('', 3, 'deployed').info, description: 'Install complete', notes: undefined },
    });
    expect(upgradeTable(installed, true)).toBe(helmGolden('upgrade-uninstalled-with-keep-history.txt'));
  });

  it('escapes <, > and & as Go does, and sorts map keys (config) but not struct fields', () => {
    const r = { ...statusMock({}), config: { b: 1, a: { d: '<x&y>', c: true } } };
    expect(statusJson(r)).toBe(
      '{"name":"flummoxed-chickadee","info":{"last_deployed":"2016-01-16T00:00:00Z","status":"deployed"},"config":{"a":{"c":true,"d":"\\u003cx\\u0026y\\u003e"},"b":1},"namespace":"default"}\n',
    );
  });
});
