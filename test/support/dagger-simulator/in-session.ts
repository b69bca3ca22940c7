// Runs SDK calls the way `dagger call` runs a function: inside one connection to the (simulated) session.
import { connection } from '@dagger.io/dagger';
import type { DaggerSimulator } from './dagger-simulator.ts';

/** `connection` resolves to nothing, so the callback's result is captured here; the session env is set only for the call. */
export async function inSession<T>(sim: DaggerSimulator, work: () => Promise<T>): Promise<T> {
  process.env['DAGGER_SESSION_PORT'] = sim.env.DAGGER_SESSION_PORT;
  process.env['DAGGER_SESSION_TOKEN'] = sim.env.DAGGER_SESSION_TOKEN;
  let result: { value: T } | undefined;
  await connection(async () => {
    result = { value: await work() };
  });
  if (result === undefined) throw new Error('the Dagger connection closed before the call returned');
  return result.value;
}
