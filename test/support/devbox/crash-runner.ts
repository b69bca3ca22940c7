// Runs one delivery in its own process and SIGKILLs itself right after the named step is journaled:
// a real crash at a step boundary (no cleanup, no finally). Usage: crash-runner.ts <targets> <target> <repo> <step>
import { kubeFromFile } from '../../../scripts/lib/ports/kube.ts';
import { deliver } from '../../../scripts/lib/delivery/deliver.ts';
import { loadTargetProfile } from '../../../scripts/lib/target/target-profile.ts';

const [targets, target, repo, step] = process.argv.slice(2) as [string, string, string, string];
const profile = await loadTargetProfile(targets, target);
const kube = kubeFromFile(profile.kubeconfigPath ?? '', profile.kube.context);
await deliver({
  profile,
  kube,
  checkout: repo,
  log: (line) => process.stderr.write(`${line}\n`),
  afterStep: (done) => {
    if (done === step) process.kill(process.pid, 'SIGKILL');
  },
});
process.stderr.write(`crash-runner: step "${step}" never ran\n`);
process.exit(4);
