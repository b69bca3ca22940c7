#!/usr/bin/env node
// The pharos credentials hook (sync wave -3): one recorded value per inventory key, each owner's Secret gets its own keys (docs/pharos.md).
import './lib/cli/require-node.ts';
import { exitOnSavedHelp } from './lib/cli/saved-help.ts';

// --help prints the text cmd-ts rendered when it was saved: it loads no cmd-ts.
await exitOnSavedHelp(new URL('./help/cluster-credentials.json', import.meta.url), '', process.argv.slice(2));
// Loaded after the help check: a help request loads none of them.
const { command, flag, option, optional, string } = await import('cmd-ts');
const { runCli } = await import('./lib/cli/run-cli.ts');
const { applyCredentials, credentialsJson } = await import('./lib/pharos/apply-credentials.ts');
const { parseInventory } = await import('./lib/pharos/secret-inventory.ts');
const { readInputFile } = await import('./lib/pharos/read-input-file.ts');
const { kubeForJob } = await import('./lib/pharos/kube-client.ts');

const cmd = command({
  name: 'cluster-credentials',
  description:
    'Give every key of the secret inventory one value, kept in the Secret "pharos-generated", and each <owner>-credentials Secret only its own keys.\n' +
    "A new key is added; an existing value is never changed; a lost record is recovered from the owners' Secrets. Prints names only.\n" +
    'Exit status: 0 done (or nothing to do), 1 API failure (retry), 2 usage, inventory or kubeconfig error, 3 refused: a Secret differs from the record.',
  args: {
    inventory: option({
      long: 'inventory',
      type: string,
      defaultValue: () => 'devops/secret-keys.json',
      defaultValueIsSerializable: true,
      description: 'the secret inventory (docs/formats/secret-keys.md)',
    }),
    namespace: option({
      long: 'namespace',
      type: optional(string),
      description: 'namespace of the Secrets (default: $POD_NAMESPACE, else "pharos")',
    }),
    kubeconfig: option({
      long: 'kubeconfig',
      type: optional(string),
      description: "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or the pod's service account)",
    }),
    dryRun: flag({ long: 'dry-run', description: 'decide and print, write nothing' }),
    json: flag({
      long: 'json',
      description: 'print {"schema":1,"namespace","changed","record","owners"} (names only)',
    }),
  },
  handler: async ({ inventory, namespace, kubeconfig, dryRun, json }) => {
    const { file, text } = await readInputFile(inventory, 'inventory', 'secret inventory');
    const ns = namespace ?? process.env['POD_NAMESPACE'] ?? 'pharos';
    const report = await applyCredentials({
      kube: await kubeForJob(kubeconfig),
      namespace: ns,
      inventory: parseInventory(text, file),
      dryRun,
      log: (line) => process.stderr.write(`${line}\n`),
    });
    if (json) process.stdout.write(credentialsJson(report));
    return 0;
  },
});

await runCli('cluster-credentials', cmd);
