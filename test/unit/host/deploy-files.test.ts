import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { hostConfigSchema } from '../../../scripts/lib/host/host-config.ts';
import { parseEnvFile } from '../../../scripts/lib/host/load-host-config.ts';
import { formatMetrics } from '../../../scripts/lib/host/metrics.ts';

const deploy = join(import.meta.dirname, '..', '..', '..', 'deploy');
const read = (name: string) => readFileSync(join(deploy, name), 'utf8');

describe('deploy/ host install files', () => {
  it('the alert rules group hephaestus-pull-deploy alerts only on metrics the reconciler writes', () => {
    const rules = parse(read('alert-rules.yaml')) as { groups: { name: string; rules: { alert: string; expr: string }[] }[] };
    expect(rules.groups.map((g) => g.name)).toEqual(['hephaestus-pull-deploy']);
    const written = formatMetrics({ channel: 's', release: 'v1.0.0', channelCommit: 'c', success: true, now: new Date(), lastSuccess: new Date(), toolingPending: false, freeBytes: 1, minFreeBytes: 2, channelVersion: 1, channelExpiry: new Date() });
    const names = new Set([...written.matchAll(/^(hephaestus_\w+)/gm)].map((m) => m[1]));
    const alerts = rules.groups[0]?.rules ?? [];
    expect(alerts.map((r) => r.alert)).toEqual(['HephaestusReconcileFailing', 'HephaestusReconcileNotRunning', 'HephaestusMetricsAbsent', 'HephaestusToolingPending', 'HephaestusLowFreeSpace', 'HephaestusChannelNearExpiry']);
    for (const rule of alerts) for (const [metric] of rule.expr.matchAll(/hephaestus_\w+/g)) expect(names, `${rule.alert}: ${metric}`).toContain(metric);
  });

  it('reconcile.env.example parses as a host configuration and names only known settings', () => {
    const env = parseEnvFile(read('reconcile.env.example'), 'reconcile.env.example');
    const known = new Set(Object.keys(hostConfigSchema.shape));
    const commentedOut = [...read('reconcile.env.example').matchAll(/^#(HEPHAESTUS_\w+)=/gm)].map((m) => m[1] ?? '');
    for (const key of [...Object.keys(env), ...commentedOut]) expect(known, key).toContain(key);
    expect(hostConfigSchema.safeParse(env).success).toBe(true);
  });

  it('the service runs one tick of reconcile-deployment.ts and the timer starts it every minute', () => {
    const service = read('hephaestus-reconcile.service');
    expect(service).toMatch(/^Type=oneshot$/m);
    expect(service).toMatch(/^ExecStart=\/usr\/bin\/node \S+\/scripts\/reconcile-deployment\.ts$/m);
    expect(read('hephaestus-reconcile.timer')).toMatch(/^OnUnitInactiveSec=1min$/m);
  });
});
