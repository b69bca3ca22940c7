// Release history as Helm's Secrets driver keeps it (helm/helm@e9b85e4): one Secret per revision,
// `sh.helm.release.v1.<name>.v<revision>`, type helm.sh/release.v1, labels name/owner/status/version plus createdAt
// (Create) and modifiedAt (Update), data.release = base64(gzip(release JSON)) (pkg/storage/driver/secrets.go, util.go).
// Create refuses an existing revision ("release: already exists", pkg/storage/driver/driver.go ErrReleaseExists): two
// upgrades computing the same revision cannot both record it, Helm's lock against concurrent upgrades
// (pkg/action/upgrade.go prepareUpgrade). Create first prunes to --history-max (pkg/storage/storage.go).
import { gunzipSync, gzipSync } from 'node:zlib';
import type { KubeClient } from './kube-client.ts';
import { HelmFailure } from './helm-failure.ts';

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

/** pkg/release/v1/release.go Release and info.go Info, in their field order (zero times are omitted). */
export interface Release {
  name: string;
  info: {
    first_deployed?: string;
    last_deployed?: string;
    deleted?: string;
    description?: string;
    status: ReleaseStatus;
    rollback_revision?: number;
    notes?: string;
  };
  chart: { metadata: Record<string, unknown>; values?: Record<string, unknown> };
  config?: Record<string, unknown>;
  manifest?: string;
  version: number;
  namespace: string;
  apply_method?: string;
  /** The Secret's labels (never in the JSON: `json:"-"`). */
  labels?: Record<string, string>;
}

export const isPending = (s: ReleaseStatus) => s.startsWith('pending-');
const key = (name: string, version: number) => `sh.helm.release.v1.${name}.v${version}`;
const unix = () => String(Math.floor(Date.now() / 1000));

export class ReleaseStore {
  readonly #kube: KubeClient;
  readonly #namespace: string;
  /** `Storage.MaxHistory`: revisions kept per release, 0 for no limit; each action sets it as Helm's does. */
  maxHistory = 0;

  constructor(kube: KubeClient, namespace: string) {
    this.#kube = kube;
    this.#namespace = namespace;
  }

  #path(name?: string): string {
    return this.#kube.path('v1', 'Secret', this.#namespace, name);
  }

  /** Every revision of `name`, oldest first (Storage.History); an empty list when Helm knows no such release. */
  async history(name: string): Promise<Release[]> {
    const items = await this.#kube.list(this.#path(), `owner=helm,name=${name}`);
    const releases = items.map((item) => {
      const data = (item.data as Record<string, string> | undefined)?.release ?? '';
      const gz = Buffer.from(Buffer.from(data, 'base64').toString('utf8'), 'base64');
      const release = JSON.parse(gunzipSync(gz).toString('utf8')) as Release;
      release.labels = (item.metadata.labels as Record<string, string> | undefined) ?? {};
      return release;
    });
    return releases.sort((a, b) => a.version - b.version);
  }

  /** Storage.Last: the newest revision, or Helm's "release: not found". */
  async last(name: string): Promise<Release> {
    const last = (await this.history(name)).at(-1);
    if (last === undefined) throw new HelmFailure('release: not found');
    return last;
  }

  #secret(release: Release, labels: Record<string, string>) {
    const { labels: _stored, ...json } = release;
    const encoded = gzipSync(Buffer.from(JSON.stringify(json))).toString('base64');
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'helm.sh/release.v1',
      metadata: {
        name: key(release.name, release.version),
        labels: {
          ...labels,
          name: release.name,
          owner: 'helm',
          status: release.info.status,
          version: String(release.version),
        },
      },
      data: { release: Buffer.from(encoded).toString('base64') },
    };
  }

  /** Storage.Create: prune to make room for one more, then create; an existing revision is refused. */
  async create(release: Release): Promise<void> {
    if (this.maxHistory > 0) await this.#removeLeastRecent(release.name, this.maxHistory - 1);
    const labels = { ...(release.labels ?? {}), createdAt: unix() };
    const r = await this.#kube.request('POST', this.#path(), this.#secret(release, labels));
    if (r.status === 409) throw new HelmFailure('release: already exists');
    if (r.status >= 300) throw new HelmFailure(`create: failed to create: ${String(r.body.message ?? r.status)}`);
    release.labels = labels;
  }

  /** Storage.Update (recordRelease): an unconditional PUT of the revision's Secret. */
  async update(release: Release): Promise<void> {
    const labels = { ...(release.labels ?? {}), modifiedAt: unix() };
    const r = await this.#kube.request(
      'PUT',
      this.#path(key(release.name, release.version)),
      this.#secret(release, labels),
    );
    if (r.status >= 300) throw new HelmFailure(`update: failed to update: ${String(r.body.message ?? r.status)}`);
    release.labels = labels;
  }

  async delete(name: string, version: number): Promise<void> {
    await this.#kube.remove(this.#path(key(name, version)));
  }

  /** storage.go removeLeastRecent: drop the oldest revisions down to `maximum`, never the newest deployed one. */
  async #removeLeastRecent(name: string, maximum: number): Promise<void> {
    const history = await this.history(name);
    if (history.length <= maximum) return;
    const lastDeployed = history.filter((r) => r.info.status === 'deployed').at(-1);
    const doomed: Release[] = [];
    for (const r of history) {
      if (history.length - doomed.length === maximum) break;
      if (r.version !== lastDeployed?.version) doomed.push(r);
    }
    for (const r of doomed) await this.delete(name, r.version);
  }
}
