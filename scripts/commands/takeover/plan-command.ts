// `takeover plan`: the working tree's fingerprints against the receipt, while the cluster's clean-up runs beside it.
import { command, flag } from 'cmd-ts';
import { EXIT_CODES, targetArgs } from './target-args.ts';

export const planArgs = {
  ...targetArgs,
  explain: flag({ long: 'explain', description: 'name the changed inputs of each differing image' }),
  json: flag({ long: 'json', description: 'print JSON on stdout' }),
};

export const planCommand = command({
  name: 'takeover plan',
  description:
    'Compare working-tree fingerprints with the receipt: in-cluster, candidate, needs-reconcile.\n' + EXIT_CODES,
  args: planArgs,
  handler: async (args) => (await import('./plan-handler.ts')).planHandler(args),
});
