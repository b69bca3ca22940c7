// The cmd-ts command of scripts/fingerprint.ts (loaded after the compile cache is on; its handler only when it runs).
import { array, command, flag, multioption, option, optional, string } from 'cmd-ts';
import { repoOption } from './common-options.ts';

export const fingerprintArgs = {
  repo: repoOption('repository folder'),
  rev: option({
    long: 'rev',
    type: optional(string),
    description: "hash this commit's tree instead of the working tree",
  }),
  image: multioption({
    long: 'image',
    type: array(string),
    description: 'catalogue name (repeatable; default: all)',
  }),
  explain: option({
    long: 'explain',
    type: optional(string),
    description: "print this image's fingerprint/v1 text, one line per file",
  }),
  since: option({
    long: 'since',
    type: optional(string),
    description:
      "with --explain: print what changed since REV (a commit, e.g. a receipt's) or 'last' (the last --explain run)",
  }),
  json: flag({ long: 'json', description: 'print {"schema":1,"source","images"} as JSON' }),
};

export const fingerprintCommand = command({
  name: 'fingerprint',
  description:
    'Print the fingerprint/v1 of every catalogue image (gitops/manifests/images.yaml).\n' +
    'Exit status: 0 done, 1 failure (git or I/O), 2 usage, catalogue or repository error.',
  args: fingerprintArgs,
  handler: async (args) => (await import('./fingerprint-handler.ts')).fingerprintHandler(args),
});
