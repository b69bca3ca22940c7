#!/usr/bin/env node
// The pharos provision hook (sync wave -1): each context's role, database and migrations in PostgreSQL (docs/pharos.md).
import './lib/cli/require-node.ts';
import { resolve } from 'node:path';
import { exitOnSavedHelp } from './lib/cli/saved-help.ts';

// --help prints the text cmd-ts rendered when it was saved: it loads no cmd-ts.
await exitOnSavedHelp(new URL('./help/provision-contexts.json', import.meta.url), '', process.argv.slice(2));
// Loaded after the help check: a help request loads none of them.
const { array, command, flag, multioption, number, option, string } = await import('cmd-ts');
const { runCli } = await import('./lib/cli/run-cli.ts');
const { systemClock } = await import('./lib/ports/clock.ts');
const { readInputFile } = await import('./lib/pharos/read-input-file.ts');
const { parseContextRegistry, selectContexts } = await import('./lib/pharos/context-registry.ts');
const { connectPostgres } = await import('./lib/pharos/postgres-connection.ts');
const { planProvision, provisionContexts } = await import('./lib/pharos/provision.ts');
const { UsageError } = await import('./lib/errors/toolkit-error.ts');

const cmd = command({
  name: 'provision-contexts',
  description:
    "Create each registered context's role and database in PostgreSQL and apply its migrations, idempotently.\n" +
    'Without --secrets it only reads the registry and the migrations and prints what it would provision.\n' +
    'Exit status: 0 done, 1 PostgreSQL unavailable or a migration failed (rolled back), 2 usage, registry or secrets error.',
  args: {
    secrets: flag({
      long: 'secrets',
      description: 'provision, reading the bindings and the administrator password from --secrets-dir',
    }),
    secretsDir: option({
      long: 'secrets-dir',
      type: string,
      defaultValue: () => '/var/run/secrets/pharos',
      defaultValueIsSerializable: true,
      description: "folder with one file per Secret key (the Job's projected volume)",
    }),
    registry: option({
      long: 'registry',
      type: string,
      defaultValue: () => 'devops/contexts.json',
      defaultValueIsSerializable: true,
      description: 'the context registry (docs/formats/contexts.md)',
    }),
    root: option({
      long: 'root',
      type: string,
      defaultValue: () => '.',
      defaultValueIsSerializable: true,
      description: "where the contexts' migrations paths start",
    }),
    host: option({
      long: 'host',
      type: string,
      defaultValue: () => 'postgres',
      defaultValueIsSerializable: true,
      description: 'PostgreSQL host',
    }),
    port: option({
      long: 'port',
      type: number,
      defaultValue: () => 5432,
      defaultValueIsSerializable: true,
      description: 'PostgreSQL port',
    }),
    adminUser: option({
      long: 'admin-user',
      type: string,
      defaultValue: () => 'postgres',
      defaultValueIsSerializable: true,
      description: 'the administrator role',
    }),
    adminKey: option({
      long: 'admin-key',
      type: string,
      defaultValue: () => 'POSTGRES_PASSWORD',
      defaultValueIsSerializable: true,
      description: "the administrator password's key in --secrets-dir",
    }),
    wait: option({
      long: 'wait',
      type: number,
      defaultValue: () => 120,
      defaultValueIsSerializable: true,
      description: 'seconds to wait for PostgreSQL to answer',
    }),
    context: multioption({
      long: 'context',
      type: array(string),
      description: 'provision only this context (repeatable; default: all)',
    }),
    json: flag({ long: 'json', description: 'print {"schema":1,"contexts":[...]} as JSON' }),
  },
  handler: async (args) => {
    if (!Number.isInteger(args.port) || args.port < 1 || args.port > 65535)
      throw new UsageError(`--port must be 1 to 65535, not ${args.port}`);
    if (!(args.wait >= 0)) throw new UsageError(`--wait must be a number of seconds, not ${args.wait}`);
    const { file, text } = await readInputFile(args.registry, 'registry', 'context registry');
    const contexts = selectContexts(parseContextRegistry(text, file), args.context, file);
    const log = (line: string) => process.stderr.write(`${line}\n`);
    if (!args.secrets) {
      const plan = await planProvision(contexts, resolve(args.root));
      if (args.json) process.stdout.write(`${JSON.stringify({ schema: 1, provisioned: false, contexts: plan })}\n`);
      else
        for (const p of plan)
          process.stdout.write(
            `${p.context}: role ${p.role}, database ${p.database}, password from ${p.binding}, migrations ${p.migrations.join(' ') || '-'}\n`,
          );
      log('provision: nothing provisioned (pass --secrets to connect to PostgreSQL)');
      return 0;
    }
    const outcomes = await provisionContexts({
      contexts,
      root: resolve(args.root),
      secrets: resolve(args.secretsDir),
      adminUser: args.adminUser,
      adminKey: args.adminKey,
      target: { host: args.host, port: args.port },
      connect: connectPostgres,
      clock: systemClock,
      waitMs: args.wait * 1000,
      log,
    });
    if (args.json) process.stdout.write(`${JSON.stringify({ schema: 1, provisioned: true, contexts: outcomes })}\n`);
    return 0;
  },
});

await runCli('provision-contexts', cmd);
