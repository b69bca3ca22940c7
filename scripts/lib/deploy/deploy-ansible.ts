import { spawn } from 'node:child_process';
import { killGroup, trackGroup } from '../ports/process-group.ts';
import { resolve } from 'node:path';
import { z } from 'zod';
import { DeployError } from './deploy-error.ts';

/** This toolkit's playbook: the cluster layers are the toolkit's, the delivered commit is the platform's. */
export const ANSIBLE_DIR = resolve(import.meta.dirname, '../../../deploy/ansible');

export interface LayerRun {
  readonly layer: string;
  readonly inventory: string;
  readonly vars: Readonly<Record<string, unknown>>;
  readonly check: boolean;
  readonly timeoutMs: number;
  /** Each output line, for progress. */
  readonly line?: (text: string) => void;
}

export interface LayerOutcome {
  readonly hosts: Readonly<Record<string, HostRecap>>;
}

const count = z.coerce.number().int().min(0);
const recapSchema = z.strictObject({
  ok: count,
  changed: count,
  unreachable: count,
  failed: count,
  skipped: count,
  rescued: count,
  ignored: count,
});
export type HostRecap = z.infer<typeof recapSchema>;

/** Runs one layer of the playbook with `ansible-playbook`; the port the deploy steps call (tests may pass another). */
export type Ansible = (run: LayerRun) => Promise<LayerOutcome>;

/** The PLAY RECAP lines (`host : ok=3 changed=1 …`), each validated; no recap means the run did not finish. */
export function parseRecap(output: string): Record<string, HostRecap> {
  const at = output.lastIndexOf('PLAY RECAP');
  if (at < 0) return {};
  const hosts: Record<string, HostRecap> = {};
  for (const line of output.slice(at).split('\n').slice(1)) {
    const match = /^(\S+)\s+:\s+(.*)$/.exec(line.trim());
    if (match === null) continue;
    const fields = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)=(\d+)/g)].map((m) => [m[1], m[2]]));
    const parsed = recapSchema.safeParse(fields);
    if (!parsed.success)
      throw new DeployError(
        'layer-failed',
        `Cannot read ansible-playbook's recap line "${line.trim()}": ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')} missing or not a count`,
      );
    hosts[match[1] ?? ''] = parsed.data;
  }
  return hosts;
}

/** The argument array for one layer: never a shell string; variables as one JSON argument. */
export function layerArgs(run: LayerRun): string[] {
  return [
    '-i',
    run.inventory,
    resolve(ANSIBLE_DIR, 'site.yml'),
    '--tags',
    run.layer,
    '--extra-vars',
    JSON.stringify(run.vars),
    ...(run.check ? ['--check', '--diff'] : []),
  ];
}

export const ansiblePlaybook: Ansible = (run) =>
  new Promise((done, fail) => {
    const child = spawn('ansible-playbook', layerArgs(run), {
      cwd: ANSIBLE_DIR,
      env: {
        ...process.env,
        ANSIBLE_NOCOLOR: '1',
        ANSIBLE_FORCE_COLOR: '0',
        ANSIBLE_ROLES_PATH: resolve(ANSIBLE_DIR, 'roles'),
        ANSIBLE_RETRY_FILES_ENABLED: 'false',
        PYTHONUNBUFFERED: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: the deadline ends ansible and every worker and ssh it forked, and no pipe they hold open
      // keeps the layer waiting.
      detached: true,
    });
    const release = child.pid === undefined ? () => {} : trackGroup(child.pid);
    let output = '';
    let partial = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      child.stdout.destroy();
      child.stderr.destroy();
    }, run.timeoutMs);
    const take = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output += text;
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') run.line?.(line);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (cause) => {
      clearTimeout(timer);
      release();
      fail(
        new DeployError(
          'layer-failed',
          `Cannot run ansible-playbook for layer "${run.layer}": ${cause.message} (install ansible-core: scripts/install-tools.sh)`,
          { cause },
        ),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      release();
      let hosts: Record<string, HostRecap>;
      try {
        // A run the deadline cut short has no recap to read.
        hosts = timedOut ? {} : parseRecap(output);
      } catch (error) {
        fail(error);
        return;
      }
      const bad = Object.entries(hosts).filter(([, r]) => r.failed > 0 || r.unreachable > 0);
      if (code === 0 && bad.length === 0 && Object.keys(hosts).length > 0) {
        done({ hosts });
        return;
      }
      const why = timedOut
        ? `no end within ${run.timeoutMs} ms; its process group was killed`
        : signal !== null
          ? `stopped by ${signal}`
          : bad.length > 0
            ? bad.map(([h, r]) => `${h}: ${r.failed} failed, ${r.unreachable} unreachable`).join('; ')
            : `exit status ${code}`;
      const last = output
        .trim()
        .split('\n')
        .filter((l) => /fatal:|ERROR!|FAILED!|^failed: \[/.test(l)) // `failed: [host] (item=…)` is a loop item's
        .slice(-2)
        .join(' / ');
      fail(
        new DeployError(
          'layer-failed',
          `Cannot apply cluster layer "${run.layer}": ansible-playbook ${why}${last === '' ? '' : `: ${last.slice(0, 400)}`}`,
          { details: { layer: run.layer, code, hosts } },
        ),
      );
    });
  });
