import { describeZodIssues } from '../errors/zod-issues.ts';
import { MAX_ARTIFACT_BYTES } from '../signing/read-bounded.ts';
import { ChannelError } from './channel-error.ts';
import { channelV1Schema, channelV2CommitSchema, channelV2ReleaseSchema } from './channel-schema.ts';
import type { Channel } from './channel-schema.ts';

function malformed(file: string, message: string, details: Record<string, unknown> = {}): ChannelError {
  return new ChannelError('malformed', `Cannot read channel ${message}`, { details: { file, ...details } });
}

/** Parses channel bytes (schema 1 or 2); every bad field is named with its value. */
export function parseChannel(bytes: Uint8Array, file: string): Channel {
  if (bytes.byteLength > MAX_ARTIFACT_BYTES)
    throw new ChannelError('too-large', `Cannot read channel "${file}": ${bytes.byteLength} bytes is over the limit`, {
      details: { file },
    });
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (cause) {
    throw malformed(file, `"${file}": not UTF-8 JSON (${(cause as Error).message})`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw malformed(file, `"${file}": expected a JSON object`);
  const record = json as Record<string, unknown>;
  if (record.schema === 2) {
    const schema = 'commit' in record ? channelV2CommitSchema : channelV2ReleaseSchema;
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw malformed(file, `(schema 2):\n${describeZodIssues(file, json, parsed.error).join('\n')}`);
    const c = parsed.data;
    if (Date.parse(c.expires) <= Date.parse(c.issued))
      throw malformed(file, `"${file}": expires "${c.expires}" is not after issued "${c.issued}"`);
    return {
      schema: 2,
      environment: c.environment,
      version: c.version,
      issued: c.issued,
      expires: c.expires,
      target: 'commit' in c ? { commit: c.commit, images: c.images } : { release: c.release },
      allowRollback: c.allowRollback,
      freeze: c.freeze,
      refreshDatabaseImage: 'refreshDatabaseImage' in c ? c.refreshDatabaseImage : false,
      refresh: c.refresh,
    };
  }
  if (record.schema !== undefined && record.schema !== 1)
    throw malformed(file, `"${file}": schema: expected 1 or 2 (value ${JSON.stringify(record.schema)})`);
  const parsed = channelV1Schema.safeParse(json);
  if (!parsed.success) throw malformed(file, `(schema 1):\n${describeZodIssues(file, json, parsed.error).join('\n')}`);
  const c = parsed.data;
  return {
    schema: 1,
    environment: undefined,
    version: undefined,
    issued: undefined,
    expires: undefined,
    target: 'commit' in c ? { commit: c.commit, images: c.images } : { release: c.release },
    allowRollback: c.allowRollback,
    freeze: c.freeze,
    refreshDatabaseImage: 'refreshDatabaseImage' in c ? c.refreshDatabaseImage : false,
    refresh: false,
  };
}

/** Canonical bytes of a schema-2 channel as promotion writes them. */
export function serializeChannel(channel: Channel): string {
  if (channel.schema !== 2)
    throw new ChannelError('malformed', 'Cannot write a schema-1 channel: promotion writes schema 2 only');
  const target =
    'release' in channel.target
      ? { release: channel.target.release }
      : {
          commit: channel.target.commit,
          images: channel.target.images,
          refreshDatabaseImage: channel.refreshDatabaseImage,
        };
  const body = {
    schema: 2,
    environment: channel.environment,
    version: channel.version,
    issued: channel.issued,
    expires: channel.expires,
    ...target,
    allowRollback: channel.allowRollback,
    freeze: channel.freeze,
    ...(channel.refresh ? { refresh: true } : {}),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}
