import { describe, expect, it } from 'vitest';
import { exec } from '../../../scripts/lib/ports/exec.ts';
import { remoteCommand, shellQuote } from '../../../scripts/lib/runner/shell-quote.ts';
import { sshArgs } from '../../../scripts/lib/runner/ssh.ts';
import { sshFailure } from '../../../scripts/lib/runner/ssh.ts';
import { chooseRunner } from '../../../scripts/lib/runner/use-runner.ts';
import { parseTargetProfile } from '../../../scripts/lib/target/target-profile.ts';

const HOSTILE = [
  "it's",
  'a b',
  '$(touch pwned)',
  '`id`',
  '; rm -rf /',
  '"quoted"',
  '\\back\\slash',
  'new\nline',
  '*',
  '',
  '--option',
  "''",
  '$HOME',
];

describe("remoteCommand() quotes every argument for the runner's POSIX shell", () => {
  it('a real sh splits the quoted line back into exactly the arguments given, expanding nothing', async () => {
    const result = await exec('sh', ['-c', `printf '%s\\0' ${remoteCommand(HOSTILE)}`]);
    expect(result.code).toBe(0);
    expect(result.stdout.toString('utf8').split('\0').slice(0, -1)).toEqual(HOSTILE);
  });
  it('refuses a NUL byte, which no shell argument can carry', () => {
    expect(() => shellQuote('a\0b')).toThrow(/NUL/);
  });
});

const base =
  'schema: 1\nkube: {}\ngit: {push: x, cluster: "git://x/p.git"}\nregistry: {host: "127.0.0.1:5000"}\nroot: {application: r}\nproject: p\n';
const withRunner = parseTargetProfile(
  `${base}runner: {host: runner.test, user: pharos, toolkit: /opt/pharos, knownHosts: kh, identity: ~/.ssh/id_runner}\n`,
  '/a/targets/t.yaml',
  't',
);

describe('sshArgs() and chooseRunner()', () => {
  it('always checks host keys, never prompts, and passes the remote command as one quoted argument after the host', () => {
    const args = sshArgs(withRunner.runner!, ['/opt/pharos/node', "it's"]);
    expect(args).toContain('StrictHostKeyChecking=yes');
    expect(args).toContain('BatchMode=yes');
    expect(args).toContain('UserKnownHostsFile=/a/targets/kh');
    expect(args.slice(-3)).toEqual(['--', 'runner.test', `'/opt/pharos/node' 'it'\\''s'`]);
  });
  it('goes through the runner on macOS, when forced, or when the profile says always; without a runner section it says what to add', () => {
    expect(chooseRunner(withRunner, 'linux', false)).toBeUndefined();
    expect(chooseRunner(withRunner, 'darwin', false)?.host).toBe('runner.test');
    expect(chooseRunner(withRunner, 'linux', true)?.host).toBe('runner.test');
    const none = parseTargetProfile(base, '/a/targets/t.yaml', 't');
    expect(() => chooseRunner(none, 'darwin', false)).toThrow(
      /profile "\/a\/targets\/t\.yaml" has no "runner" section/,
    );
  });
  it('tells a host key refusal (never retried) from a dropped link (retried)', () => {
    expect(sshFailure({ code: 255, stdout: Buffer.alloc(0), stderr: 'Host key verification failed.\r\n' })).toBe(
      'host-key',
    );
    expect(
      sshFailure({ code: 255, stdout: Buffer.alloc(0), stderr: 'Connection closed by 127.0.0.1 port 2222\r\n' }),
    ).toBe('connection');
    expect(sshFailure({ code: 3, stdout: Buffer.alloc(0), stderr: '' })).toBeUndefined();
  });
});
