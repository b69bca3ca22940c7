// Options several commands take with the same meaning and default: one definition, so their --help agrees.
import { option, string } from 'cmd-ts';

/** `--repo <folder>`, this folder unless told; `what` says which repository the command means. */
export const repoOption = (what: string) =>
  option({ long: 'repo', type: string, defaultValue: () => '.', defaultValueIsSerializable: true, description: what });

/** `--targets <folder>`, where the target profiles are (`targets/` unless told). */
export const targetsOption = () =>
  option({
    long: 'targets',
    type: string,
    defaultValue: () => 'targets',
    defaultValueIsSerializable: true,
    description: 'folder of target profiles',
  });
