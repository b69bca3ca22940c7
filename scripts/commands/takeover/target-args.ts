// What every takeover command takes: the target, the folder of profiles, this checkout; and the exit statuses.
import { option, string } from 'cmd-ts';
import { repoOption, targetsOption } from '../common-options.ts';

export { EXIT_CODES } from './exit-codes.ts';

export const targetArgs = {
  target: option({
    long: 'target',
    type: string,
    defaultValue: () => 'local',
    defaultValueIsSerializable: true,
    description: 'target name: its profile is <targets>/<name>.yaml',
  }),
  targets: targetsOption(),
  repo: repoOption('this checkout'),
};

/** The Kubernetes client is the heaviest module: commands load it when they need the cluster. */
export const cluster = () => import('../../lib/takeover/cluster-commands.ts');
