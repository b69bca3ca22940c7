import { openRegularFile, RegularFileError } from '../ports/regular-file.ts';
import type { Kube } from '../ports/kube.ts';
import { DeployError } from './deploy-error.ts';
import type { DeployProfile } from '../target/deploy-profile.ts';
import { writeSecretKeys } from './deploy-secret.ts';

/** Where the workstation keeps provider tokens; the real one reads files, tests may pass another. */
export type TokenSource = (file: string) => Promise<string>;

const MAX_TOKEN = 4096;

/**
 * A token file: a regular file (`lstat` first: never a symlink, never a FIFO, which would block the open until some
 * writer came), readable by its owner only (as ssh demands of keys), one line of printable characters. Errors name the
 * file and the rule, never the token.
 */
export const fileTokens: TokenSource = async (file) => {
  const opened = await openRegularFile(file).catch((cause: unknown) => {
    if (!(cause instanceof RegularFileError)) throw cause;
    throw new DeployError('bad-token', `Cannot read provider token "${file}": ${cause.reason}`, {
      cause,
      details: { file },
    });
  });
  const { handle, info } = opened;
  try {
    if ((info.mode & 0o077) !== 0) {
      throw new DeployError(
        'bad-token',
        `Cannot use provider token "${file}": mode ${(info.mode & 0o777).toString(8)} lets others read it (chmod 600 "${file}")`,
        { details: { file } },
      );
    }
    if (info.size > MAX_TOKEN)
      throw new DeployError(
        'bad-token',
        `Cannot use provider token "${file}": ${info.size} bytes, more than a token (${MAX_TOKEN})`,
        { details: { file } },
      );
    const token = (await handle.readFile('utf8')).replace(/\r?\n$/, '');
    if (!/^[\x21-\x7e]+$/.test(token))
      throw new DeployError(
        'bad-token',
        `Cannot use provider token "${file}": it must be one line of printable characters, with no spaces`,
        { details: { file } },
      );
    return token;
  } finally {
    await handle.close();
  }
};

export interface TokenOutcome {
  readonly provider: string;
  readonly secret: string;
  readonly action: 'created' | 'updated' | 'unchanged';
}

/** Every token is read and checked before any Secret changes; then each goes to its Secret key. */
export async function applyProviderTokens(
  kube: Kube,
  source: TokenSource,
  tokens: DeployProfile['tokens'],
): Promise<TokenOutcome[]> {
  const values = [];
  for (const entry of tokens) values.push(await source(entry.file));
  const out: TokenOutcome[] = [];
  for (const [i, entry] of tokens.entries()) {
    const action = await writeSecretKeys(
      kube,
      entry.namespace,
      entry.secret,
      { [entry.key]: values[i] ?? '' },
      { 'pharos.dev/provider': entry.provider },
    );
    out.push({ provider: entry.provider, secret: `${entry.namespace}/${entry.secret}`, action });
  }
  return out;
}
