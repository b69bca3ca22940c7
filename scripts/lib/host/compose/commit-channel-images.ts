import { isDeepStrictEqual } from 'node:util';
import { PINNED_IMAGE } from '../../channel/channel-schema.ts';
import type { Channel } from '../../channel/channel-schema.ts';
import type { Git } from '../../ports/git.ts';
import type { Fs } from '../../ports/fs.ts';
import { readBlobs } from '../deploy-state-cache.ts';
import { DATABASE_PATHS, DATABASE_VARIABLE, chooseDatabaseImage } from './database-image.ts';
import type { DatabaseImageReason } from './database-image.ts';
import { hostPaths } from '../host-paths.ts';
import { servicesUsingVariable } from './stack-config.ts';
import { readEnvFile } from '../load-host-config.ts';
import type { AppliedView } from '../applied-record.ts';

async function utcDay(cache: Git, commit: string): Promise<string | undefined> {
  const shown = await cache.run(['show', '-s', '--format=%ct', commit]);
  if (shown.code !== 0) return undefined;
  return new Date(Number(shown.stdout.toString('utf8').trim()) * 1000).toISOString().slice(0, 10);
}

async function databaseServices(cache: Git, commit: string, stacks: readonly string[]): Promise<unknown> {
  const reads = await readBlobs(
    cache,
    commit,
    stacks.map((s) => `docker/compose.${s}.yaml`),
  );
  return reads.map((read) =>
    read.kind === 'ok' ? servicesUsingVariable(read.bytes.toString('utf8'), DATABASE_VARIABLE) : {},
  );
}

export interface CommitImages {
  readonly images: Record<string, string>;
  readonly database: DatabaseImageReason | undefined;
}

/** A commit channel's images, with the running database image carried forward unless a rule asks for the new one. */
export async function commitChannelImages(options: {
  readonly cache: Git;
  readonly fs: Fs;
  readonly root: string;
  readonly channel: Channel;
  readonly commit: string;
  readonly previous: AppliedView | undefined;
  readonly stacks: readonly string[];
}): Promise<CommitImages> {
  const { cache, channel, commit, previous } = options;
  const images = 'images' in channel.target ? { ...channel.target.images } : {};
  const channelImage = images[DATABASE_VARIABLE];
  if (channelImage === undefined) return { images, database: undefined };
  let previousImage: string | undefined;
  let previousDay: string | undefined;
  let inputsChanged = true;
  let serviceChanged = true;
  const previousCommit = previous?.commit;
  if (previous !== undefined && previousCommit !== undefined) {
    const lock = await readEnvFile(
      options.fs,
      hostPaths.lockEnv(options.root, previous.release ?? previousCommit),
    ).catch(() => undefined);
    const candidate = lock?.[DATABASE_VARIABLE];
    previousImage = candidate !== undefined && PINNED_IMAGE.test(candidate) ? candidate : undefined;
    previousDay = await utcDay(cache, previousCommit);
    const diff = await cache.run(['diff', '--name-only', previousCommit, commit, '--', ...DATABASE_PATHS]);
    inputsChanged = diff.code !== 0 || diff.stdout.toString('utf8').trim() !== '';
    serviceChanged = !isDeepStrictEqual(
      await databaseServices(cache, previousCommit, options.stacks),
      await databaseServices(cache, commit, options.stacks),
    );
  }
  const choice = chooseDatabaseImage({
    channelImage,
    previousImage,
    refreshRequested: channel.refreshDatabaseImage,
    inputsChanged,
    serviceChanged,
    previousDay,
    targetDay: (await utcDay(cache, commit)) ?? '9999-12-31',
  });
  images[DATABASE_VARIABLE] = choice.image;
  return { images, database: choice.reason };
}
