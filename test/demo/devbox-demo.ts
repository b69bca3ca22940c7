// `make demo-devbox`: the dev loop on a SIMULATED dev box (the test Kubernetes API server, the Argo CD and BuildKit
// simulators, a real local registry and real Git): deliver a commit, change a file, plan and start a takeover, hand back.
import { spawn } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { exec } from '../../scripts/lib/ports/exec.ts';
import { startTestDevbox } from '../support/devbox/test-devbox.ts';

const TOP = resolve(import.meta.dirname, '../..');
const NODE = join(TOP, 'node_modules/.bin/node');
const say = (title: string) => process.stdout.write(`\n== ${title}\n`);

/** `takeover start` as a user runs it in a terminal: until it says it holds the lease, then Ctrl-C (SIGINT). */
async function takeoverStart(args: readonly string[]): Promise<{ log: string; handBack: () => Promise<number> }> {
  process.stdout.write(`$ takeover.ts start ${args.join(' ')}\n`);
  const child = spawn(NODE, [join(TOP, 'scripts/takeover.ts'), 'start', ...args], {
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  const exited = new Promise<number>((done) => child.once('close', (code, signal) => done(code ?? (signal ? 128 : 1))));
  let log = '';
  await new Promise<void>((held, failed) => {
    const timer = setTimeout(
      () => failed(new Error(`takeover start did not hold the lease in 120 s:\n${log}`)),
      120_000,
    );
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (/holding \[/.test(log)) clearTimeout(timer), held();
    });
    void exited.then((code) => failed(new Error(`takeover start exited ${code}:\n${log}`)));
  });
  return { log, handBack: () => (child.kill('SIGINT'), exited) };
}

/** Runs one of the toolkit's commands as a user would and shows its output; a failure ends the demo. */
async function show(script: string, args: readonly string[]): Promise<void> {
  process.stdout.write(`$ ${script} ${args.join(' ')}\n`);
  const result = await exec(NODE, [join(TOP, 'scripts', script), ...args], { timeoutMs: 300_000 });
  process.stdout.write(result.stdout.toString('utf8'));
  if (result.code !== 0) {
    process.stderr.write(result.stderr);
    throw new Error(`${script} exited ${result.code}`);
  }
}

say(
  '0. A simulated dev box: Kubernetes API test server, Argo CD and BuildKit simulators, local registry (nothing here is a real cluster)',
);
const box = await startTestDevbox();
const target = ['--target', box.target, '--targets', box.targetsDir, '--repo', box.repo.dir];
let status = 0;
try {
  process.stdout.write(
    `target ${box.target}: profile ${join(box.targetsDir, `${box.target}.yaml`)}, checkout ${box.repo.dir}\n`,
  );

  say('1. make reconcile: deliver HEAD, building every image in the (simulated) cluster');
  await show('devbox.ts', ['reconcile', ...target]);

  say('2. Change a file of compat-web in the checkout (not committed)');
  await appendFile(join(box.repo.dir, 'apps/compat/src/run.sh'), '# edited by the demo\n');
  process.stdout.write('appended a line to apps/compat/src/run.sh\n');

  say('3. takeover plan --explain: what differs from what the dev box runs, and why');
  await show('takeover.ts', ['plan', '--explain', ...target]);

  say('4. takeover start compat-web: lease the Application, scale its workload to zero, run it from the checkout');
  const running = await takeoverStart(['compat-web', ...target]);
  process.stdout.write(`${running.log.trim()}\n`);
  await show('takeover.ts', ['status', ...target]);

  say('5. Ctrl-C: hand back (the window and the lease go, Argo CD restores the workload)');
  process.stdout.write(`takeover start exited ${await running.handBack()}\n`);
  await show('takeover.ts', ['status', ...target]);
  say(
    'Done: that was a simulated dev box; docs/devbox.md and docs/takeover.md say how to point the same commands at a real one',
  );
} catch (error) {
  process.stderr.write(`demo-devbox: ${(error as Error).message}\n`);
  status = 1;
} finally {
  await box.stop();
}
process.exit(status);
