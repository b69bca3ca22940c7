// Takes over compat-web in its own process and SIGKILLs itself right after the named step is journaled: a real crash
// at a step boundary (no finally, no hand-back). `handback:*` steps first acquire, then hand back.
// Usage: crash-runner.ts <targets> <target> <checkout> <step> [docker]
// With `docker`: api with its Docker runtime, replaced through Telepresence (the simulator on PATH).
// PHAROS_CRASH_TTL_MS sets the lease's time to live (a lease that expires soon after the kill).
import { kubeFromFile } from '../../../scripts/lib/ports/kube.ts';
import { readReceipt } from '../../../scripts/lib/target/receipt.ts';
import { loadTargetProfile } from '../../../scripts/lib/target/target-profile.ts';
import {
  makeTakeoverContext,
  planTakeover,
  resolveWorkloads,
  RUNTIMES,
  startSession,
  telepresenceReplacement,
} from '../../../scripts/lib/takeover/index.ts';

const [targets, target, checkout, step, mode] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string | undefined,
];
const image = mode === 'docker' ? 'api' : 'compat-web';
const profile = await loadTargetProfile(targets, target);
const kube = kubeFromFile(profile.kubeconfigPath ?? '', profile.kube.context);
const ctx = await makeTakeoverContext({
  profile,
  kube,
  checkout,
  pollMs: 20,
  ...(process.env['PHAROS_CRASH_TTL_MS'] ? { ttlMs: Number(process.env['PHAROS_CRASH_TTL_MS']) } : {}),
  ...(mode === 'docker' ? { replacement: telepresenceReplacement() } : {}),
  log: (line) => process.stderr.write(`${line}\n`),
  afterStep: (done) => {
    if (done === step) process.kill(process.pid, 'SIGKILL');
  },
});
const receipt = (await readReceipt(ctx.paths.receipt))!;
const { catalogue } = await planTakeover({ checkout, receipt, runtimes: Object.keys(RUNTIMES) });
const session = await startSession(
  ctx,
  receipt,
  catalogue,
  await resolveWorkloads(kube, profile.namespaces.argocd, catalogue, receipt, [image]),
);
await session.handBack();
process.stderr.write(`crash-runner: step "${step}" never ran\n`);
process.exit(4);
