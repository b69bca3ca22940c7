// The floor of a warm `takeover plan`: Node, the snapshot's `git status` started first thing, and the libraries a
// plan cannot do without loaded beside it (zod without its locales, yaml for the profile and the kubeconfig, the
// Kube port); no work. Argument: the repository folder.
import '../../../scripts/lib/cli/compile-cache.ts';
import { skipZodLocales } from '../../../scripts/lib/errors/skip-zod-locales.ts';
import { gitPort } from '../../../scripts/lib/ports/git.ts';
import { runGitStatus } from '../../../scripts/lib/fingerprint/git-commands-snapshot.ts';

skipZodLocales();
const status = runGitStatus(gitPort(process.argv[2] ?? '.'));
await Promise.all([import('zod'), import('yaml'), import('../../../scripts/lib/ports/kube.ts')]);
const result = await status;
if (result.code !== 0) process.stderr.write(result.stderr);
process.exitCode = result.code;
