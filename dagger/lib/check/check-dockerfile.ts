import type { ImageEntry } from '../catalogue/catalogue.ts';
import { isAtOrUnder } from '../catalogue/repo-path.ts';
import type { DockerfileAnalysis } from '../dockerfile/analyse-dockerfile.ts';
import { imageFileSet } from '../fingerprint/fingerprint-images.ts';
import type { SourceEntry } from '../fingerprint/tree-source.ts';
import { finding } from './finding.ts';
import type { Finding } from './finding.ts';
import { isGlob, matchGlob, resolveSource } from './resolve-source.ts';
import { filesUnder } from './sorted-files.ts';

const list = (paths: readonly string[]) => paths.map((p) => `"${p}"`).join(', ');

/**
 * The Dockerfile rules for one image: every context read must lie at or under an input
 * (`copy-outside-inputs`) and reach at least one file the fingerprint keeps (`copy-excluded`).
 */
export function checkDockerfile(
  image: ImageEntry,
  analysis: DockerfileAnalysis,
  files: readonly SourceEntry[],
  excluded: (path: string) => boolean,
): Finding[] {
  const out: Finding[] = [];
  const at = (rule: Parameters<typeof finding>[0], line: number, message: string) =>
    out.push(finding(rule, image.name, image.dockerfile, line, message));
  for (const problem of analysis.problems)
    at('bad-dockerfile', problem.line, `Cannot analyse the build of "${image.name}": ${problem.message}`);
  for (const remote of analysis.remotes) {
    const blank =
      remote.unset.length === 0
        ? ''
        : `; ${remote.unset.map((name) => `"${name}"`).join(', ')} ${remote.unset.length === 1 ? 'has' : 'have'} no value here (no ARG default, no catalogue arg), so the URL is fetched with ${remote.unset.length === 1 ? 'it' : 'them'} blank`;
    at(
      'remote-add',
      remote.line,
      `ADD "${remote.url}" fetches content the fingerprint cannot see; a change there rebuilds nothing${blank}`,
    );
  }
  for (const read of analysis.reads) {
    const what = `${read.instruction} source "${read.source}"`;
    const paths = isGlob(read.source)
      ? matchGlob(image.context, read.source, files)
      : [resolveSource(image.context, read.source)];
    // the Dockerfile is in every file set, wherever it lives
    const outside = paths.filter((p) => p !== image.dockerfile && !image.inputs.some((input) => isAtOrUnder(p, input)));
    if (outside.length > 0) {
      const whole = outside.includes(image.context) ? ` (the whole context "${image.context}")` : '';
      at(
        'copy-outside-inputs',
        read.line,
        `${what} reads ${list(outside.slice(0, 3))}${outside.length > 3 ? ` and ${outside.length - 3} more` : ''}${whole}, not at or under any input of "${image.name}" (${list(image.inputs)})`,
      );
      continue;
    }
    const reached = paths.flatMap((p) => filesUnder(files, p));
    // the fingerprint's own file-set rule, one file at a time so the first kept file ends the search
    if (reached.length > 0 && !reached.some((file) => imageFileSet(image, [file], excluded).length > 0)) {
      at(
        'copy-excluded',
        read.line,
        `${what} only reaches files the exclude globs drop from the fingerprint (${list(reached.slice(0, 3).map((f) => f.path))}${reached.length > 3 ? ', …' : ''}); the build uses content no fingerprint covers`,
      );
    }
  }
  return out;
}
