// Helm 4's own golden outputs (helm/helm@e9b85e4:pkg/cmd/testdata/output/) fed through the host's Helm port: what the
// real `helm` prints is what the port reads. The simulator is held against the same files (test/e2e/helm-contracts).
import { describe, expect, it } from 'vitest';
import type { Exec } from '../../../../scripts/lib/ports/exec.ts';
import { helmPort } from '../../../../scripts/lib/host/chart/helm-port.ts';
import { helmGolden } from '../../../support/contracts/helm/sources.ts';
import type { HelmGolden } from '../../../support/contracts/helm/sources.ts';

const settings = { binary: 'helm', release: 'r', namespace: 'default', waitTimeoutSeconds: 300, kubeconfig: undefined };
/** A `helm` that prints the golden file on stdout (or stderr with exit 1, as Helm reports an error). */
const printing =
  (name: HelmGolden, failed = false): Exec =>
  async () =>
    failed
      ? { code: 1, stdout: Buffer.alloc(0), stderr: helmGolden(name) }
      : { code: 0, stdout: Buffer.from(helmGolden(name)), stderr: '' };

describe('the Helm port reads what Helm 4 prints', () => {
  it('status -o json: a release without chart (Helm strips it), its status and namespace (status.json)', async () => {
    expect(await helmPort(printing('status.json'), settings).status()).toEqual({
      name: 'flummoxed-chickadee',
      info: { status: 'deployed' },
      namespace: 'default',
    });
    expect((await helmPort(printing('status-with-resources.json'), settings).status())?.info.status).toBe('deployed');
  });

  it('get metadata -o json: the chart name and version of the last revision (get-metadata.json)', async () => {
    expect(await helmPort(printing('get-metadata.json'), settings).metadata()).toEqual({
      name: 'thomas-guide',
      chart: 'foo',
      version: '0.1.0-beta.1',
      appVersion: '1.0',
      namespace: 'default',
      revision: 1,
      status: 'deployed',
      deployedAt: '1977-09-02T22:04:05Z',
    });
  });

  it('history -o json: every row, oldest first, with a rollback revision where Helm writes one', async () => {
    expect(await helmPort(printing('history.json'), settings).history()).toEqual([
      {
        revision: 3,
        updated: '1977-09-02T22:04:05Z',
        status: 'superseded',
        chart: 'foo-0.1.0-beta.1',
        app_version: '1.0',
        description: 'Release mock',
      },
      {
        revision: 4,
        updated: '1977-09-02T22:04:05Z',
        status: 'deployed',
        chart: 'foo-0.1.0-beta.1',
        app_version: '1.0',
        description: 'Release mock',
      },
    ]);
    const rolled = await helmPort(printing('history-with-rollback.json'), settings).history();
    expect(rolled?.map((r) => [r.revision, r.status, r.rollback_revision])).toEqual([
      [1, 'superseded', undefined],
      [2, 'superseded', undefined],
      [3, 'deployed', 1],
    ]);
  });

  it('the tabular status is not JSON: the port refuses it, naming the command', async () => {
    await expect(helmPort(printing('status.txt'), settings).status()).rejects.toThrow(
      /^Cannot read helm status r: not JSON/,
    );
  });

  it("Helm's refusals reach the operator word for word (upgrade over a pending install; a missing revision)", async () => {
    await expect(
      helmPort(printing('upgrade-with-pending-install.txt', true), settings).upgradeInstall('c', [], {
        rollbackOnFailure: true,
      }),
    ).rejects.toThrow(
      'Cannot upgrade release "r": helm exited 1: Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress',
    );
    await expect(helmPort(printing('rollback-non-existent-version.txt', true), settings).rollback(3)).rejects.toThrow(
      'Cannot roll release "r" back to revision 3: helm exited 1: Error: release has no 3 version',
    );
  });
});
