// Benchmark: a delivery where nothing changed, as a ratio to the `git push` it makes (target: at most 3x),
// and the number of Kubernetes API requests it sends. Run: npx node test/bench/reconcile.bench.ts
import { performance } from 'node:perf_hooks';
import { gitPort } from '../../scripts/lib/ports/git.ts';
import { kubeFromConfig } from '../../scripts/lib/ports/kube.ts';
import { deliver } from '../../scripts/lib/delivery/deliver.ts';
import { startTestDevbox } from '../support/devbox/test-devbox.ts';

const ROUNDS = 11;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const box = await startTestDevbox();
try {
  const quiet = { log: () => {}, progress: () => {} };
  // Its own client, so the count holds the delivery's requests only, not the simulators'.
  const kube = kubeFromConfig(box.server.kubeConfig());
  const options = { profile: box.profile, kube, checkout: box.repo.dir, ...quiet };
  await deliver(options); // first delivery: builds everything, not measured
  await deliver(options); // warms the blob cache and the Git server's refs
  // Everything is Synced and Healthy now: pause the in-process simulators so their polling does not share the
  // event loop with the measured runs (a no-change delivery only reads the Applications' status).
  await box.argocd.stop();
  await box.buildkit.stop();
  const git = gitPort(box.repo.dir);
  const commit = (await git.run(['rev-parse', 'HEAD'])).stdout.toString('utf8').trim();
  const pushArgs = [
    'push',
    '--quiet',
    '--force',
    box.repo.bare,
    `${commit}:refs/heads/devbox`,
    `${commit}:refs/pharos/commits/${commit}`,
  ];
  const pushes: number[] = [];
  const deliveries: number[] = [];
  const requests: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let started = performance.now();
    const pushed = await git.run(pushArgs);
    pushes.push(performance.now() - started);
    if (pushed.code !== 0) throw new Error(`git push failed: ${pushed.stderr}`);
    const before = kube.requestCount();
    started = performance.now();
    const outcome = await deliver(options);
    deliveries.push(performance.now() - started);
    requests.push(kube.requestCount() - before);
    if (outcome.plan.some((p) => p.build)) throw new Error('a no-change delivery planned a build');
  }
  const ratio = median(deliveries) / median(pushes);
  const line = (name: string, value: string) => process.stdout.write(`${name.padEnd(44)} ${value}\n`);
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} ms`;
  line(
    'reconcile (nothing changed) / git push',
    `${ratio.toFixed(2)}x (target <= 2x: ${ratio <= 2 ? 'met' : 'NOT met'})`,
  );
  line('  git push, median of ' + ROUNDS, `${median(pushes).toFixed(1)} ms (${range(pushes)})`);
  line('  reconcile, median of ' + ROUNDS, `${median(deliveries).toFixed(1)} ms (${range(deliveries)})`);
  line(
    'Kubernetes API requests per no-change delivery',
    `${median(requests)} (min ${Math.min(...requests)}, max ${Math.max(...requests)})`,
  );
} finally {
  await box.stop();
}
