// The calls entry points read without cmd-ts (plainArgv) mean what cmd-ts reads from them: the same arguments,
// defaults included, for every vector of up to three pieces that plainArgv accepts.
import { command, runSafely } from 'cmd-ts';
import { describe, expect, it } from 'vitest';
import { plainArgv } from '../../../scripts/lib/cli/plain-argv.ts';
import type { PlainArgv, PlainArgvSpec } from '../../../scripts/lib/cli/plain-argv.ts';
import { argumentLists } from '../../support/argument-lists.ts';
import { fingerprintArgs } from '../../../scripts/commands/fingerprint-command.ts';
import { FINGERPRINT_PLAIN, plainFingerprintArgs } from '../../../scripts/commands/fingerprint-handler.ts';
import { reconcileArgs } from '../../../scripts/commands/reconcile-command.ts';
import { RECONCILE_PLAIN, plainReconcileArgs } from '../../../scripts/commands/reconcile-plain.ts';
import { planArgs } from '../../../scripts/commands/takeover/plan-command.ts';
import { PLAN_PLAIN, plainPlanArgs } from '../../../scripts/commands/takeover/plan-handler.ts';

/** What cmd-ts hands the handler for `argv`, or undefined when it refuses the vector. */
async function cmdTsReads(args: Parameters<typeof command>[0]['args'], argv: readonly string[]): Promise<unknown> {
  const result = await runSafely(command({ name: 'probe', args, handler: async (read: unknown) => read }), [...argv]);
  return result._tag === 'ok' ? await result.value : undefined;
}

const CALLS: readonly {
  readonly name: string;
  readonly spec: PlainArgvSpec;
  readonly args: Parameters<typeof command>[0]['args'];
  readonly map: (plain: PlainArgv) => unknown;
  readonly pieces: readonly string[];
  readonly common: readonly (readonly string[])[];
}[] = [
  {
    name: 'fingerprint',
    spec: FINGERPRINT_PLAIN,
    args: fingerprintArgs,
    map: plainFingerprintArgs,
    pieces: ['--repo', 'dir', '--rev=HEAD', '--json', '--explain', '--image', 'x', '-h', '--since=last'],
    common: [[], ['--repo', 'dir'], ['--json'], ['--repo', 'dir', '--rev', 'HEAD', '--json'], ['--explain', 'web']],
  },
  {
    name: 'takeover plan',
    spec: PLAN_PLAIN,
    args: planArgs,
    map: plainPlanArgs,
    pieces: ['--target', 'dev', '--targets=t', '--repo', '--json', '--explain', '-h', 'x'],
    common: [[], ['--json'], ['--explain'], ['--json', '--target', 'dev', '--targets', 't', '--repo', '.']],
  },
  {
    name: 'reconcile-deployment',
    spec: RECONCILE_PLAIN,
    args: reconcileArgs,
    map: plainReconcileArgs,
    pieces: ['--plan', '--json', '--plan=true', 'status', '-h', '--help', '--bogus'],
    common: [[], ['--plan'], ['--json'], ['--plan', '--json']],
  },
];

describe.each(CALLS)('$name read without cmd-ts', ({ spec, args, map, pieces, common }) => {
  it('gives the handler what cmd-ts gives it, for every vector plainArgv accepts', async () => {
    const differ: string[] = [];
    let accepted = 0;
    for (const argv of argumentLists(pieces)) {
      const plain = plainArgv(argv, spec);
      if (plain === undefined) continue;
      accepted++;
      const ours = JSON.stringify(map(plain));
      const theirs = JSON.stringify(await cmdTsReads(args, argv));
      if (ours !== theirs) differ.push(`${argv.join(' ')}: ${ours} vs ${theirs}`);
    }
    expect(differ).toEqual([]);
    expect(accepted).toBeGreaterThanOrEqual(common.length);
  });

  it('takes the calls made most', () => {
    for (const argv of common) expect(plainArgv(argv, spec), argv.join(' ')).toBeDefined();
  });
});
