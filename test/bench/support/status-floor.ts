// The floor of a working-tree fingerprint as the default snapshot takes it: Node, the git port and the one
// `git status` every snapshot runs, started first thing; nothing else. Argument: the repository folder.
import '../../../scripts/lib/cli/compile-cache.ts';
import { gitPort } from '../../../scripts/lib/ports/git.ts';
import { runGitStatus } from '../../../scripts/lib/fingerprint/git-commands-snapshot.ts';

const result = await runGitStatus(gitPort(process.argv[2] ?? '.'));
if (result.code !== 0) process.stderr.write(result.stderr);
process.exitCode = result.code;
