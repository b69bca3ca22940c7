// Runs one `deploy` in its own process and SIGKILLs itself right after the named step is journaled:
// a real crash at a step boundary (no cleanup, no finally). Usage: deploy-crash-runner.ts <targets> <target> <repo> <step>
import { kubeFromFile } from '../../../scripts/lib/ports/kube.ts';
import { loadTargetProfile } from '../../../scripts/lib/target/target-profile.ts';
import { deploy } from '../../../scripts/lib/deploy/deploy.ts';
import { keycloakAai } from '../../../scripts/lib/deploy/deploy-keycloak.ts';

const [targets, target, repo, step] = process.argv.slice(2) as [string, string, string, string];
const profile = await loadTargetProfile(targets, target);
const aai = profile.deploy?.aai;
await deploy({
  profile,
  kube: kubeFromFile(profile.kubeconfigPath ?? '', profile.kube.context),
  checkout: repo,
  aai: aai === undefined ? undefined : keycloakAai(aai.issuer, aai.credentials),
  log: (line) => process.stderr.write(`${line}\n`),
  afterStep: (done) => {
    if (done === step) process.kill(process.pid, 'SIGKILL');
  },
});
process.stderr.write(`deploy-crash-runner: step "${step}" never ran\n`);
process.exit(4);
