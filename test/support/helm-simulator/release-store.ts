// Release history as Helm's Secrets driver keeps it: one Secret per revision, `sh.helm.release.v1.<name>.v<revision>`,
// type helm.sh/release.v1, labels name/owner/status/version, data.release = base64(gzip(release JSON)).
import { gunzipSync, gzipSync } from 'node:zlib';
import type { KubeClient } from './kube-client.ts';

export type ReleaseStatus =
  | 'unknown'
  | 'deployed'
  | 'uninstalled'
  | 'superseded'
  | 'failed'
  | 'uninstalling'
  | 'pending-install'
  | 'pending-upgrade'
  | 'pending-rollback';

export interface Release {
  name: string;
  namespace: string;
  version: number;
  info: {
    first_deployed: string;
    last_deployed: string;
    deleted: string;
    description: string;
    status: ReleaseStatus;
    notes?: string;
  };
  chart: { metadata: Record<string, unknown>; values: Record<string, unknown> };
  config: Record<string, unknown>;
  manifest: string;
}

export const isPending = (s: ReleaseStatus) => s.startsWith('pending-');

export class ReleaseStore {
  readonly #kube: KubeClient;
  readonly #namespace: string;

  constructor(kube: KubeClient, namespace: string) {
    this.#kube = kube;
    this.#namespace = namespace;
  }

  #path(name?: string): string {
    return this.#kube.path('v1', 'Secret', this.#namespace, name);
  }

  /** Every revision of `name`, oldest first. */
  async history(name: string): Promise<Release[]> {
    const items = await this.#kube.list(this.#path(), `owner=helm,name=${name}`);
    const releases = items.map((item) => {
      const data = (item.data as Record<string, string> | undefined)?.release ?? '';
      const gz = Buffer.from(Buffer.from(data, 'base64').toString('utf8'), 'base64');
      return JSON.parse(gunzipSync(gz).toString('utf8')) as Release;
    });
    return releases.sort((a, b) => a.version - b.version);
  }

  /** Creates or updates the revision's Secret (Helm's `recordRelease`). */
  async record(release: Release): Promise<void> {
    const key = `sh.helm.release.v1.${release.name}.v${release.version}`;
    const encoded = gzipSync(Buffer.from(JSON.stringify(release))).toString('base64');
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'helm.sh/release.v1',
      metadata: {
        name: key,
        labels: { name: release.name, owner: 'helm', status: release.info.status, version: String(release.version) },
      },
      data: { release: Buffer.from(encoded).toString('base64') },
    };
    await this.#kube.apply(this.#namespace, secret);
  }

  async removeAll(name: string): Promise<void> {
    for (const r of await this.history(name))
      await this.#kube.remove(this.#path(`sh.helm.release.v1.${name}.v${r.version}`));
  }
}
