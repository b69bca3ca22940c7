#!/usr/bin/env node
// Takeover (spec: devbox-receipt-and-lease.md): run services from this checkout while Argo CD keeps its hands off them.
import './lib/cli/require-node.ts';
import './lib/cli/compile-cache.ts';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

// plan and start begin with the working tree's snapshot: start it now, while the modules below load (after the
// compile cache is on: static imports are compiled before any code runs).
if (process.argv[2] === 'plan' || process.argv[2] === 'start')
  await (await import('./lib/cli/prefetch-worktree.ts')).prefetchWorktree(process.argv);

// Loaded after the code cache is on: static imports would be compiled before it.
const { command, option, optional, string, flag, restPositionals } = await import('cmd-ts');
const { runCli } = await import('./lib/cli/run-cli.ts');
const { formatTable } = await import('./lib/cli/table.ts');
const { hashProgress } = await import('./lib/cli/progress.ts');
const { UsageError } = await import('./lib/errors/toolkit-error.ts');
const { loadTargetProfile } = await import('./lib/target/target-profile.ts');
const { parseDuration } = await import('./lib/target/duration.ts');
const { readReceipt } = await import('./lib/target/receipt.ts');
const { targetStatePaths } = await import('./lib/target/state-paths.ts');
const { LeaseError } = await import('./lib/ownership/lease-error.ts');
const { RUNTIMES } = await import('./lib/takeover/runtimes.ts');
const { planTakeover } = await import('./lib/takeover/plan-takeover.ts');
const { LEASE_TTL_MS, RENEW_EVERY_MS, runRenewals } = await import('./lib/takeover/renewal-loop.ts');
type TargetProfile = import('./lib/target/target-profile.ts').TargetProfile;
type TakeoverContext = import('./lib/takeover/takeover-context.ts').TakeoverContext;
type Receipt = import('./lib/target/receipt.ts').Receipt;

// The Kubernetes client is the heaviest module: `plan` loads it while it fingerprints.
const cluster = () => import('./lib/takeover/cluster-commands.ts');

const EXIT_CODES =
  'Exit status: 0 done, 1 failure (API, runtime, lease lost), 2 usage, profile or receipt error,\n' +
  '3 refused: another checkout holds a lease or a delivery runs.';

const common = {
  target: option({
    long: 'target',
    type: string,
    defaultValue: () => 'local',
    defaultValueIsSerializable: true,
    description: 'target name: its profile is <targets>/<name>.yaml',
  }),
  targets: option({
    long: 'targets',
    type: string,
    defaultValue: () => 'targets',
    defaultValueIsSerializable: true,
    description: 'folder of target profiles',
  }),
  repo: option({
    long: 'repo',
    type: string,
    defaultValue: () => '.',
    defaultValueIsSerializable: true,
    description: 'this checkout',
  }),
};

function kubeconfigOf(profile: TargetProfile): string {
  return profile.kubeconfigPath ?? process.env['KUBECONFIG']?.split(':')[0] ?? join(homedir(), '.kube', 'config');
}

function durationOption(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const ms = parseDuration(text);
  if (ms === undefined || ms < 1000)
    throw new UsageError(`Cannot use ${name} ${JSON.stringify(text)}: give a duration such as "90s", "5m" or "12h"`);
  return ms;
}

async function contextFor(
  args: { target: string; targets: string; repo: string },
  ttlMs?: number,
  replacementKind = 'scale-to-zero',
): Promise<TakeoverContext> {
  const profile = await loadTargetProfile(resolve(args.targets), args.target);
  const { makeTakeoverContext, kubeFromFile, chooseReplacement } = await cluster();
  const kube = kubeFromFile(kubeconfigOf(profile), profile.kube.context);
  const replacement = await chooseReplacement(replacementKind, kube, (line) =>
    process.stderr.write(`takeover: ${line}\n`),
  );
  return makeTakeoverContext({ profile, kube, checkout: resolve(args.repo), ttlMs, replacement });
}

async function receiptAt(file: string, target: string): Promise<Receipt> {
  const receipt = await readReceipt(file);
  if (receipt === undefined)
    throw new LeaseError(
      'no-receipt',
      `Cannot plan a takeover of target "${target}": no receipt at "${file}" (run make reconcile first)`,
    );
  return receipt;
}
const receiptOf = (ctx: TakeoverContext) => receiptAt(ctx.paths.receipt, ctx.profile.name);

async function cleanup(ctx: TakeoverContext) {
  const { cleanupTarget, stopLocalFor } = await cluster();
  return cleanupTarget({
    kube: ctx.kube,
    profile: ctx.profile,
    clock: ctx.clock,
    log: ctx.log,
    replacement: ctx.replacements['scale-to-zero'],
    stopLocal: stopLocalFor(ctx),
  });
}

const plan = command({
  name: 'takeover plan',
  description:
    'Compare working-tree fingerprints with the receipt: in-cluster, candidate, needs-reconcile.\n' + EXIT_CODES,
  args: {
    ...common,
    explain: flag({ long: 'explain', description: 'name the changed inputs of each differing image' }),
    json: flag({ long: 'json', description: 'print JSON on stdout' }),
  },
  handler: async (args) => {
    // The cleanup and the fingerprints are independent: the cluster's round trips overlap the hashing.
    const checkout = resolve(args.repo);
    const receipt = await receiptAt((await targetStatePaths(checkout, args.target)).receipt, args.target);
    const planned = planTakeover({
      checkout,
      receipt,
      runtimes: Object.keys(RUNTIMES),
      explain: args.explain,
      progress: hashProgress('hashing'),
    });
    const cleaned = contextFor(args).then(async (ctx) =>
      cleanup(ctx).catch((error: Error) => ctx.log(`cleanup skipped: ${error.message}`)),
    );
    const [{ rows }] = await Promise.all([planned, cleaned]);
    if (args.json)
      process.stdout.write(
        `${JSON.stringify({ schema: 1, target: args.target, commit: receipt.commit, images: rows })}\n`,
      );
    else {
      process.stdout.write(`receipt: ${receipt.commit}\n`);
      process.stdout.write(
        formatTable(
          ['IMAGE', 'APPLICATION', 'STATUS', 'RUNTIME', 'WHY'],
          rows.map((r) => [r.image, r.application, r.status, r.runtime ?? '-', r.reasons.join('; ')]),
        ),
      );
    }
    return 0;
  },
});

const start = command({
  name: 'takeover start',
  description:
    'Acquire the lease on the Applications of the chosen images (default: every candidate), run the images here (native\n' +
    'or Docker), route their workloads to them through Telepresence (else scale them to zero), follow saved files\n' +
    '(restarting what a save moves), renew every 5 minutes; Ctrl-C, SIGTERM or `takeover stop` hands everything back.\n' +
    EXIT_CODES,
  args: {
    ...common,
    images: restPositionals({ type: string, displayName: 'IMAGE', description: 'catalogue names to take over' }),
    ttl: option({ long: 'ttl', type: optional(string), description: 'lease time to live (default 12h)' }),
    renewEvery: option({ long: 'renew-every', type: optional(string), description: 'renewal interval (default 5m)' }),
    replacement: option({
      long: 'replacement',
      type: string,
      defaultValue: () => 'auto',
      defaultValueIsSerializable: true,
      description: 'auto (Telepresence when its CLI answers, else scale-to-zero), telepresence or scale-to-zero',
    }),
    noWatch: flag({
      long: 'no-watch',
      description: 'do not follow saved files (by default a save restarts the runtimes of the images it moves)',
    }),
    debounce: option({
      long: 'debounce',
      type: optional(string),
      description: 'quiet period after a save before deciding (default 200ms)',
    }),
  },
  handler: async (args) => {
    const ttlMs = durationOption(args.ttl, LEASE_TTL_MS, '--ttl');
    const renewMs = durationOption(args.renewEvery, RENEW_EVERY_MS, '--renew-every');
    if (renewMs >= ttlMs)
      throw new UsageError('Cannot renew less often than the lease lives: --renew-every must be shorter than --ttl');
    if (!['auto', 'telepresence', 'scale-to-zero'].includes(args.replacement))
      throw new UsageError(
        `Cannot use --replacement ${JSON.stringify(args.replacement)}: give auto, telepresence or scale-to-zero`,
      );
    const millis = /^(\d{1,6})ms$/.exec(args.debounce ?? '');
    const debounceMs =
      args.debounce === undefined
        ? 200
        : millis !== null
          ? Number(millis[1])
          : (parseDuration(args.debounce) ?? Number.NaN);
    if (!Number.isFinite(debounceMs))
      throw new UsageError(
        `Cannot use --debounce ${JSON.stringify(args.debounce)}: give a duration such as "200ms" or "1s"`,
      );
    const ctx = await contextFor(args, ttlMs, args.replacement);
    // Ctrl-C or SIGTERM at any point, even while acquiring, ends in a hand-back; a second one does not cut it short.
    let requestStop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (requestStop = resolve));
    const onSignal = (signal: string) => {
      process.stderr.write(`takeover: ${signal}: handing back (this takes a moment)\n`);
      requestStop();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const { acquireLocalLock, TargetError, resolveWorkloads, startSession, watchSession } = await cluster();
    const lock = await acquireLocalLock(
      join(ctx.paths.dir, 'takeover.lock'),
      `a takeover of target "${ctx.profile.name}"`,
    ).catch((error: unknown) => {
      if (error instanceof TargetError)
        throw new LeaseError(
          'lease-held',
          `Cannot start a takeover of target "${ctx.profile.name}": ${String(error.details['pid'] ? `process ${error.details['pid']} of this checkout runs one` : error.message)}`,
        );
      throw error;
    });
    try {
      const receipt = await receiptOf(ctx);
      const { catalogue, rows } = await planTakeover({
        checkout: ctx.checkout,
        receipt,
        runtimes: Object.keys(RUNTIMES),
      });
      const chosen =
        args.images.length > 0 ? args.images : rows.filter((r) => r.status === 'candidate').map((r) => r.image);
      if (chosen.length === 0)
        throw new LeaseError(
          'not-a-candidate',
          'Cannot start a takeover: no image differs from the receipt and has a takeover runtime (name images to run them anyway)',
        );
      for (const name of chosen) {
        const row = rows.find((r) => r.image === name);
        if (row === undefined)
          throw new UsageError(`Cannot take over image "${name}": the catalogue has no such entry`);
        if (row.runtime === undefined || !(row.runtime in RUNTIMES))
          throw new LeaseError(
            'not-a-candidate',
            `Cannot take over image "${name}": ${row.reasons.at(-1) ?? 'no takeover runtime'}; it needs make reconcile`,
          );
      }
      // Refused before any lease exists: a Docker build reads only what the fingerprint reads.
      const { checkBuildPaths } = await import('./lib/takeover/docker-runtime.ts');
      for (const entry of catalogue.images)
        if (chosen.includes(entry.name) && entry.takeover?.runtime === 'docker')
          await checkBuildPaths(ctx.checkout, entry);
      const targets = await resolveWorkloads(ctx.kube, ctx.profile.namespaces.argocd, catalogue, receipt, chosen);
      const session = await startSession(ctx, receipt, catalogue, targets);
      ctx.log(
        `holding [${session.state.record.applications.join(', ')}] until ${session.state.record.expires}; Ctrl-C hands back`,
      );
      const watcher = args.noWatch
        ? undefined
        : await watchSession(ctx, session.state, catalogue, targets, { debounceMs });
      const outcome = await runRenewals({ renew: () => session.renew(), everyMs: renewMs, log: ctx.log, stopped });
      await watcher?.close();
      if (outcome.kind === 'lost') ctx.log(`lease lost: ${outcome.reason}; handing back`);
      await session.handBack();
      if (outcome.kind === 'lost')
        throw new LeaseError('lease-lost', `Lost the lease on target "${ctx.profile.name}": ${outcome.reason}`);
      ctx.log('handed back');
      return 0;
    } finally {
      await lock.release();
    }
  },
});

const status = command({
  name: 'takeover status',
  description:
    'Who holds the lease, since and until when, which Applications and windows, the local runtimes, replacements,\ntraffic agents and queued agent removals, what the journal says.\n' +
    EXIT_CODES,
  args: { ...common, json: flag({ long: 'json', description: 'print JSON on stdout' }) },
  handler: async (args) => {
    const ctx = await contextFor(args);
    const { takeoverStatus, formatStatus, liveStatus } = await cluster();
    const cleaned = await cleanup(ctx);
    const lease = cleaned.snapshot.records.lease;
    const result = await takeoverStatus(
      args.target,
      cleaned,
      ctx.paths.journal,
      ctx.clock.now(),
      lease === undefined ? undefined : await liveStatus(ctx, lease),
    );
    process.stdout.write(args.json ? `${JSON.stringify({ schema: 1, ...result })}\n` : formatStatus(result));
    return 0;
  },
});

async function releaseTarget(args: { target: string; targets: string; repo: string }, force: boolean): Promise<number> {
  const ctx = await contextFor(args);
  const cleaned = await cleanup(ctx);
  const { decideRelease, handBack, stateFor } = await cluster();
  const decision = decideRelease(cleaned.snapshot.records.lease, ctx.holder, ctx.clock.now(), force);
  if (decision.kind === 'refuse')
    throw new LeaseError('lease-held', `Cannot release target "${ctx.profile.name}": ${decision.reason}`);
  if (decision.kind === 'nothing') {
    process.stdout.write(
      `no lease on ${args.target}${cleaned.done.length > 0 ? ` (cleaned up: ${cleaned.done.join('; ')})` : ''}\n`,
    );
    return 0;
  }
  if (decision.breaks !== undefined) ctx.log(`--force: ${decision.breaks}`);
  await handBack(ctx, stateFor(decision.record));
  process.stdout.write(`released [${decision.record.applications.join(', ')}] on ${args.target}\n`);
  return 0;
}

const release = command({
  name: 'takeover release',
  description:
    "Hand the lease back from any state (also after a crash). Another checkout's unexpired lease needs --force.\n" +
    EXIT_CODES,
  args: {
    ...common,
    force: flag({ long: 'force', description: "hand back another checkout's unexpired lease (says what it breaks)" }),
  },
  handler: (args) => releaseTarget(args, args.force),
});

const watch = command({
  name: 'takeover watch',
  description:
    'Follow saved files and print what each save moves: the images `start` restarts, those that need make reconcile,\n' +
    'candidates not taken over. Changes nothing (the running `start` restarts its own runtimes). Ctrl-C ends it.\n' +
    EXIT_CODES,
  args: {
    ...common,
    json: flag({ long: 'json', description: 'one JSON line per save on stdout' }),
    debounce: option({
      long: 'debounce',
      type: optional(string),
      description: 'quiet period after a save (default 200ms)',
    }),
  },
  handler: async (args) => {
    const checkout = resolve(args.repo);
    const receipt = await receiptAt((await targetStatePaths(checkout, args.target)).receipt, args.target);
    const running = new Set<string>();
    try {
      const ctx = await contextFor(args);
      const { liveStatus } = await cluster();
      const lease = (await cleanup(ctx)).snapshot.records.lease;
      if (lease !== undefined)
        for (const r of (await liveStatus(ctx, lease)).runtimes) if (r.running) running.add(r.image);
    } catch (error) {
      process.stderr.write(
        `takeover: cannot read the lease (${(error as Error).message}): reporting as if nothing ran here\n`,
      );
    }
    const { watchReports } = await import('./lib/takeover/watch-report.ts');
    const millis = /^(\d{1,6})ms$/.exec(args.debounce ?? '');
    const debounceMs =
      args.debounce === undefined
        ? 200
        : millis !== null
          ? Number(millis[1])
          : (parseDuration(args.debounce) ?? Number.NaN);
    if (!Number.isFinite(debounceMs))
      throw new UsageError(
        `Cannot use --debounce ${JSON.stringify(args.debounce)}: give a duration such as "200ms" or "1s"`,
      );
    const watcher = await watchReports(
      checkout,
      receipt,
      running,
      (r) => {
        if (args.json) process.stdout.write(`${JSON.stringify({ schema: 1, ...r })}\n`);
        else
          process.stdout.write(
            `${r.paths.join(', ')}: restart [${r.restart.join(', ')}] needs make reconcile [${r.reconcile.join(', ')}] candidates [${r.candidates.join(', ')}] back to the receipt [${r.inCluster.join(', ')}] (${r.ms} ms)\n`,
          );
      },
      { debounceMs, onError: (e) => process.stderr.write(`takeover: watch: ${e.message}\n`) },
    );
    process.stderr.write('takeover: watching saved files (editor temporaries and .local/ ignored); Ctrl-C ends\n');
    await new Promise<void>((done) => {
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
    watcher.close();
    return 0;
  },
});

const stop = command({
  name: 'takeover stop',
  description:
    "Ask this checkout's running `takeover start` to hand back and wait until it has; with none running, the same as release.\n" +
    EXIT_CODES,
  args: { ...common },
  handler: async (args) => {
    const { runningStart, stopRunningStart } = await import('./lib/takeover/stop-running.ts');
    const paths = await targetStatePaths(resolve(args.repo), args.target);
    const pid = await runningStart(join(paths.dir, 'takeover.lock'));
    if (pid === undefined) return releaseTarget(args, false);
    process.stderr.write(`takeover: asking process ${pid} to hand back\n`);
    if (!(await stopRunningStart(pid, (line) => process.stderr.write(`takeover: ${line}\n`))))
      throw new LeaseError(
        'settle-timeout',
        `Cannot stop the takeover of target "${args.target}": process ${pid} did not finish its hand-back within 10 minutes`,
      );
    process.stdout.write(`handed back (process ${pid} ended)\n`);
    return 0;
  },
});

const logs = command({
  name: 'takeover logs',
  description:
    "The last lines of each local runtime's log (.local/metallo/<target>/<image>.log), or of the named images.\n" +
    EXIT_CODES,
  args: {
    ...common,
    images: restPositionals({ type: string, displayName: 'IMAGE', description: 'images (default: every log)' }),
    lines: option({
      long: 'lines',
      type: string,
      defaultValue: () => '50',
      defaultValueIsSerializable: true,
      description: 'lines per log',
    }),
  },
  handler: async (args) => {
    const count = Number(args.lines);
    if (!Number.isInteger(count) || count < 1)
      throw new UsageError(`Cannot use --lines ${JSON.stringify(args.lines)}: give a whole number of lines`);
    const { logSnapshot } = await import('./lib/takeover/log-snapshot.ts');
    const snapshot = await logSnapshot(
      (await targetStatePaths(resolve(args.repo), args.target)).dir,
      args.images,
      count,
    );
    if (snapshot.length === 0) process.stdout.write(`no runtime logs for target ${args.target}\n`);
    for (const log of snapshot) process.stdout.write(`==> ${log.image} (${log.file}) <==\n${log.lines.join('\n')}\n`);
    return 0;
  },
});

const COMMANDS = { plan, start, status, release, watch, stop, logs } as const;
const [sub, ...rest] = process.argv.slice(2);
if (sub !== undefined && sub in COMMANDS) await runCli(`takeover ${sub}`, COMMANDS[sub as keyof typeof COMMANDS], rest);
else if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
  process.stdout.write(
    'takeover <command> [options]\n\nCommands:\n' +
      '  plan      working tree against the receipt (--explain, --json)\n' +
      '  start     take over images: lease, route or scale to zero, run here (native or Docker), follow saves; Ctrl-C hands back\n' +
      '  status    the lease, its windows, local runtimes, replacements, traffic agents, journal (--json)\n' +
      "  release   hand back from any state (--force for another checkout's lease)\n" +
      '  stop      ask the running start of this checkout to hand back, and wait (else: release)\n' +
      '  watch     follow saved files and print what each save moves (--json)\n' +
      "  logs      the last lines of each local runtime's log (--lines N)\n\n" +
      `${EXIT_CODES}\n`,
  );
  process.exitCode = sub === undefined ? 2 : 0;
} else {
  process.stderr.write(`takeover: error [usage]: unknown command "${sub}" (try: takeover --help)\n`);
  process.exitCode = 2;
}
