// On the workstation: the exact commit goes to the runner as a bundle, the same devbox command runs there in the
// runner's own checkout, and its receipt comes back to .local/metallo/<target>/receipt.json.
import { join } from 'node:path';
import { gitPort } from '../ports/git.ts';
import { readCheckoutCommit } from '../delivery/resolve-checkout.ts';
import { receiptSchema, writeReceipt } from '../target/receipt.ts';
import type { Receipt } from '../target/receipt.ts';
import { targetStatePaths } from '../target/state-paths.ts';
import type { TargetProfile } from '../target/target-profile.ts';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { RunnerError } from './runner-error.ts';
import type { RunnerProfile } from '../target/runner-profile.ts';
import { createBundle } from './send-bundle.ts';
import { runSsh, sshFailure } from './ssh.ts';
import type { SshCall, SshResult } from './ssh.ts';

export interface ThroughRunner {
  readonly profile: TargetProfile;
  readonly runner: RunnerProfile;
  readonly checkout: string;
  readonly rev: string;
  readonly command: 'reconcile' | 'deploy';
  /** Extra arguments for the remote command (e.g. --parallel 2). */
  readonly args: readonly string[];
  /** REMOTE_ROOT: the runner's folder to use instead of the profile's (an existing installation's state). */
  readonly remoteRoot?: string;
  readonly log?: (line: string) => void;
  readonly ssh?: (call: SshCall) => Promise<SshResult>;
  readonly retryDelayMs?: number;
  /** false for a dry run: nothing is delivered, no receipt comes back. */
  readonly receipt?: boolean;
}

export interface RunnerOutcome {
  readonly commit: string;
  readonly receipt: Receipt | undefined;
  readonly receiptFile: string | undefined;
  readonly attempts: number;
  /** What the remote command printed on stdout. */
  readonly stdout: string;
}

export async function runThroughRunner(options: ThroughRunner): Promise<RunnerOutcome> {
  const { runner, profile } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`devbox: ${line}\n`));
  const ssh = options.ssh ?? runSsh;
  const root = options.remoteRoot ?? runner.root;
  const where = `${runner.user}@${runner.host}:${runner.port}`;
  const toolkit = (...args: string[]) => [
    join(runner.toolkit, 'node_modules/.bin/node'),
    join(runner.toolkit, 'scripts/devbox.ts'),
    ...args,
  ];
  let attempts = 0;

  /** One remote call; a dropped link is retried (the remote side resumes), a host key mismatch never is. */
  async function call(what: string, remote: string[], extra: Partial<SshCall> = {}): Promise<SshResult> {
    for (let attempt = 0; ; attempt++) {
      attempts++;
      const result = await ssh({ runner, remote, line: (l) => l !== '' && log(`runner: ${l}`), ...extra });
      const failure = sshFailure(result);
      if (failure === 'host-key') {
        throw new RunnerError(
          'host-key',
          `Cannot ${what} on runner ${where}: its host key does not match${runner.knownHosts === undefined ? '' : ` "${runner.knownHosts}"`} (ssh: ${result.stderr.trim().split('\n').at(-1)})`,
          { details: { host: runner.host } },
        );
      }
      if (failure === undefined) return result;
      if (attempt >= runner.retries)
        throw new RunnerError(
          'connection',
          `Cannot ${what} on runner ${where}: ${result.stderr.trim().split('\n').at(-1) ?? 'connection failed'} (after ${attempt + 1} attempts)`,
        );
      log(
        `runner: connection lost during ${what} (${result.stderr.trim().split('\n').at(-1) ?? ''}); retrying ${attempt + 1}/${runner.retries}`,
      );
      await new Promise((r) => setTimeout(r, options.retryDelayMs ?? 2000));
    }
  }

  const git = gitPort(options.checkout);
  const { commit } = await readCheckoutCommit(git, options.rev, 'gitops/manifests/images.yaml');
  // Plain git and cat on the runner where no toolkit code is needed: each Node start there costs more than the ssh link.
  const have = await call(
    'list the commits the runner has',
    ['git', '-C', `${root}/checkout`, 'for-each-ref', '--format=%(objectname)', 'refs/pharos-runner/'],
    { line: () => {} },
  ); // a first run has no checkout yet
  const bundle = await createBundle(
    git,
    commit,
    have.code === 0
      ? have.stdout
          .toString('utf8')
          .split('\n')
          .filter((l) => /^[0-9a-f]{40}$/.test(l))
      : [],
  );
  try {
    const sent = await call(
      `send ${commit.slice(0, 12)}`,
      toolkit('runner-receive', '--root', root, '--commit', commit),
      { stdinFile: bundle.file },
    );
    if (sent.code !== 0)
      throw new RunnerError(
        'bad-bundle',
        `Cannot send ${commit.slice(0, 12)} to runner ${where}: ${sent.stderr.trim().split('\n').at(-1)}`,
        { exitCode: sent.code === 2 ? 2 : 1 },
      );
  } finally {
    await bundle.remove();
  }
  log(`runner: ${where} checked out ${commit.slice(0, 12)} in its own checkout under "${root}"`);
  const ran = await call(
    `${options.command} ${commit.slice(0, 12)}`,
    toolkit(
      'runner-run',
      '--root',
      root,
      '--command',
      options.command,
      '--target',
      profile.name,
      '--commit',
      commit,
      '--',
      ...options.args,
    ),
  );
  if (ran.code !== 0) {
    throw new RunnerError(
      'remote-failed',
      `Cannot ${options.command} ${commit.slice(0, 12)} on runner ${where}: the runner's devbox ${options.command} exited ${ran.code}`,
      { exitCode: ran.code === 2 || ran.code === 3 ? ran.code : 1, details: { code: ran.code } },
    );
  }
  if (options.receipt === false)
    return { commit, receipt: undefined, receiptFile: undefined, attempts, stdout: ran.stdout.toString('utf8') };
  const fetched = await call('read the receipt', [
    'cat',
    '--',
    `${root}/checkout/.local/metallo/${profile.name}/receipt.json`,
  ]);
  if (fetched.code !== 0)
    throw new RunnerError(
      'bad-receipt',
      `Cannot read the receipt from runner ${where}: ${fetched.stderr.trim().split('\n').at(-1) ?? `cat exited ${fetched.code}`}`,
    );
  let raw: unknown;
  try {
    raw = JSON.parse(fetched.stdout.toString('utf8'));
  } catch {
    throw new RunnerError('bad-receipt', `Cannot read the receipt from runner ${where}: not JSON`);
  }
  const parsed = receiptSchema.safeParse(raw);
  if (!parsed.success)
    throw new RunnerError(
      'bad-receipt',
      `Cannot use the receipt from runner ${where}:\n${describeZodIssues('runner receipt', raw, parsed.error).join('\n')}`,
    );
  if (parsed.data.commit !== commit)
    throw new RunnerError(
      'bad-receipt',
      `Cannot use the receipt from runner ${where}: it names ${parsed.data.commit.slice(0, 12)}, not ${commit.slice(0, 12)}`,
    );
  const paths = await targetStatePaths(options.checkout, profile.name);
  await writeReceipt(paths.receipt, parsed.data);
  return { commit, receipt: parsed.data, receiptFile: paths.receipt, attempts, stdout: ran.stdout.toString('utf8') };
}
