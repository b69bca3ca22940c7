// Calls the module's fingerprint under Deno (the other runtime Dagger's TypeScript SDK offers), in a session
// given by DAGGER_SESSION_PORT/DAGGER_SESSION_TOKEN: deno run -A --config dagger/deno.json <this> <repo> [rev]
import { connection, dag } from '@dagger.io/dagger';
import { Pharos } from '../../../dagger/src/index.ts';

const [repo, rev] = process.argv.slice(2);
if (repo === undefined) throw new Error('usage: deno-fingerprint.ts <repo> [rev]');
await connection(async () => {
  process.stdout.write(await new Pharos().fingerprint(dag.host().directory(repo), rev));
});
