// The host install files in deploy/reconcile/, checked with the real tools: systemd-analyze and promtool.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { exec } from '../../../scripts/lib/ports/exec.ts';
import { hostConfigSchema } from '../../../scripts/lib/host/host-config.ts';
import { loadHostConfig, parseEnvFile } from '../../../scripts/lib/host/load-host-config.ts';
import { formatMetrics } from '../../../scripts/lib/host/metrics.ts';
import { roleTrust } from '../../../scripts/lib/host/role-trust.ts';
import { identityMatches } from '../../../scripts/lib/signing/identity-match.ts';

const deploy = join(import.meta.dirname, '..', '..', '..', 'deploy', 'reconcile');
const read = (name: string) => readFileSync(join(deploy, name), 'utf8');
/**
 * One `KEY=value` line's value as systemd's EnvironmentFile= reads it (systemd/systemd@0002453b101dc85db2be76703a85297a59c646a9:
 * src/basic/env-file.c, parse_env_file_internal): outside quotes a backslash keeps the next character and is dropped,
 * single quotes keep everything, double quotes unescape only " \ ` $, trailing blanks of an unquoted value go.
 */
function systemdEnvValue(raw: string): string {
  let out = '';
  let state: 'pre' | 'value' | 'single' | 'double' = 'pre';
  let blank = -1;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] ?? '';
    if (state === 'single') {
      if (c === "'") state = 'pre';
      else out += c;
    } else if (state === 'double') {
      if (c === '"') state = 'pre';
      else if (c === '\\') {
        const next = raw[++i] ?? '';
        out += '"\\`$'.includes(next) ? next : `\\${next}`;
      } else out += c;
    } else if (state === 'pre' && c === "'") state = 'single';
    else if (state === 'pre' && c === '"') state = 'double';
    else if (state === 'pre' && (c === ' ' || c === '\t')) continue;
    else if (c === '\\') {
      out += raw[++i] ?? '';
      state = 'value';
      blank = -1;
    } else {
      state = 'value';
      if (c === ' ' || c === '\t') blank = blank === -1 ? out.length : blank;
      else blank = -1;
      out += c;
    }
  }
  return state === 'value' && blank !== -1 ? out.slice(0, blank) : out;
}

describe('deploy/reconcile/ host install files', () => {
  it('the alert rules group hephaestus-pull-deploy alerts only on metrics the reconciler writes', () => {
    const rules = parse(read('alert-rules.yaml')) as {
      groups: { name: string; rules: { alert: string; expr: string }[] }[];
    };
    expect(rules.groups.map((g) => g.name)).toEqual(['hephaestus-pull-deploy']);
    const written = formatMetrics({
      channel: 's',
      release: 'v1.0.0',
      channelCommit: 'c',
      success: true,
      now: new Date(),
      lastSuccess: new Date(),
      toolingPending: false,
      freeBytes: 1,
      minFreeBytes: 2,
      channelVersion: 1,
      channelExpiry: new Date(),
    });
    const names = new Set([...written.matchAll(/^(hephaestus_\w+)/gm)].map((m) => m[1]));
    const alerts = rules.groups[0]?.rules ?? [];
    expect(alerts.map((r) => r.alert)).toEqual([
      'HephaestusReconcileFailing',
      'HephaestusReconcileNotRunning',
      'HephaestusMetricsAbsent',
      'HephaestusToolingPending',
      'HephaestusLowFreeSpace',
      'HephaestusChannelNearExpiry',
    ]);
    for (const rule of alerts)
      for (const [metric] of rule.expr.matchAll(/hephaestus_\w+/g))
        expect(names, `${rule.alert}: ${metric}`).toContain(metric);
  });

  it('promtool accepts the rules and every alert fires and stays quiet as alert-rules.test.yaml says', async () => {
    const checked = await exec('promtool', ['check', 'rules', join(deploy, 'alert-rules.yaml')]);
    expect(checked.code, checked.stderr + checked.stdout.toString()).toBe(0);
    const tested = await exec('promtool', ['test', 'rules', 'alert-rules.test.yaml'], { cwd: deploy });
    expect(tested.code, tested.stderr + tested.stdout.toString()).toBe(0);
    const cases = read('alert-rules.test.yaml');
    for (const alert of [
      'HephaestusReconcileFailing',
      'HephaestusReconcileNotRunning',
      'HephaestusMetricsAbsent',
      'HephaestusToolingPending',
      'HephaestusLowFreeSpace',
      'HephaestusChannelNearExpiry',
    ]) {
      expect(cases, alert).toMatch(new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`));
      expect(cases, alert).toMatch(new RegExp(`alertname: ${alert}, exp_alerts: \\[\\]`));
    }
  });

  it('reconcile.env.example parses as a host configuration and names only known settings', () => {
    const env = parseEnvFile(read('reconcile.env.example'), 'reconcile.env.example');
    const known = new Set(Object.keys(hostConfigSchema.shape));
    const commentedOut = [...read('reconcile.env.example').matchAll(/^#(HEPHAESTUS_\w+)=/gm)].map((m) => m[1] ?? '');
    for (const key of [...Object.keys(env), ...commentedOut]) expect(known, key).toContain(key);
    expect(hostConfigSchema.safeParse(env).success).toBe(true);
  });

  it("reconcile.env.example keeps the document's defaults: a chart host copied from it waits 1200 s, Compose 300 s", async () => {
    const etc = mkdtempSync(join(tmpdir(), 'etc-'));
    writeFileSync(join(etc, 'reconcile.env'), read('reconcile.env.example'), { mode: 0o600 });
    const load = (stacks: string) =>
      loadHostConfig({ HEPHAESTUS_ETC: etc, HEPHAESTUS_STACKS: stacks, HEPHAESTUS_ROOT: etc });
    expect((await load('chart')).HEPHAESTUS_WAIT_TIMEOUT).toBe(1200);
    expect((await load('core app')).HEPHAESTUS_WAIT_TIMEOUT).toBe(300);
    const env = parseEnvFile(read('reconcile.env.example'), 'reconcile.env.example');
    expect(env.HEPHAESTUS_WAIT_TIMEOUT).toBeUndefined();
    expect(env.HEPHAESTUS_MIN_FREE_GIB).toBeUndefined();
    expect(hostConfigSchema.parse(env).HEPHAESTUS_MIN_FREE_GIB).toBe(10);
    expect(read('reconcile.env.example')).not.toMatch(/under HEPHAESTUS_ROOT/);
  });

  it('reconcile.env.example accepts locks the release workflow signs from a tag, and channels promote.yml signs from main', () => {
    const config = hostConfigSchema.parse(parseEnvFile(read('reconcile.env.example'), 'reconcile.env.example'));
    const release = roleTrust(config, 'release');
    const promote = roleTrust(config, 'promote');
    if (release.kind !== 'keyless' || promote.kind !== 'keyless')
      throw new Error('the example pins keyless identities');
    const workflow = (file: string, ref: string) => `https://github.com/acme/platform/.github/workflows/${file}@${ref}`;
    expect(identityMatches(release.identity, workflow('release.yml', 'refs/tags/v1.2.3'))).toBe(true);
    expect(identityMatches(release.identity, workflow('release.yml', 'refs/heads/main'))).toBe(false);
    expect(identityMatches(release.identity, workflow('release.yml', 'refs/tags/v1.2.3-evil'))).toBe(false);
    expect(identityMatches(promote.identity, workflow('promote.yml', 'refs/heads/main'))).toBe(true);
  });

  it('reconcile.env.example gives systemd the values the reconciler reads itself (the identity pattern keeps its backslashes)', () => {
    const text = read('reconcile.env.example');
    const bySystemd = Object.fromEntries(
      [...text.matchAll(/^([A-Z_]+)=(.*)$/gm)].map((m) => [m[1] ?? '', systemdEnvValue(m[2] ?? '')]),
    );
    expect(bySystemd).toEqual(parseEnvFile(text, 'reconcile.env.example'));
    expect(bySystemd.HEPHAESTUS_RELEASE_IDENTITY_PATTERN).toContain('github\\.com');
    // Unquoted, systemd drops the backslashes: each dot of the pattern would accept any character.
    expect(systemdEnvValue('github\\.com')).toBe('github.com');
    expect(systemdEnvValue("'github\\.com'")).toBe('github\\.com');
  });

  it('systemd-analyze verify finds nothing to say about the service and the timer', async () => {
    const verified = await exec('systemd-analyze', [
      'verify',
      join(deploy, 'hephaestus-reconcile.service'),
      join(deploy, 'hephaestus-reconcile.timer'),
    ]);
    expect(verified.code).toBe(0);
    expect(verified.stderr.trim()).toBe('');
  });

  it("the service carries the document's sandboxing, runs the adopted tooling with the node of PATH, and stops a tick after two hours", () => {
    const service = read('hephaestus-reconcile.service');
    for (const line of [
      'Type=oneshot',
      'EnvironmentFile=/etc/hephaestus/reconcile.env',
      'StateDirectory=hephaestus',
      'StateDirectoryMode=0750',
      'ExecStart=/usr/bin/env node /var/lib/hephaestus/tooling/scripts/reconcile-deployment.ts',
      'TimeoutStartSec=2h',
      'Environment=HELM_CACHE_HOME=/var/lib/hephaestus/helm/cache',
      'Environment=HELM_CONFIG_HOME=/var/lib/hephaestus/helm/config',
      'Environment=HELM_DATA_HOME=/var/lib/hephaestus/helm/data',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'ReadWritePaths=-/var/lib/node_exporter',
      'ReadWritePaths=/etc/systemd/system',
      'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6',
      'RestrictSUIDSGID=yes',
      'RestrictRealtime=yes',
      'LockPersonality=yes',
      'SystemCallFilter=@system-service',
      'SystemCallErrorNumber=EPERM',
    ]) {
      expect(service.split('\n'), line).toContain(line);
    }
    expect(read('hephaestus-reconcile.timer')).toMatch(/^OnUnitInactiveSec=1min$/m);
  });
});
