import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseToolList, toolsFor, ToolListError } from '../../../scripts/lib/tools/index.ts';

const LIST = resolve(import.meta.dirname, '../../../scripts/install-tools.tsv');
const line = (...fields: string[]) => fields.join('\t');

describe('parseToolList', () => {
  it('reads one program a line, with its modes, package, probe alternatives and purpose; comments and blanks skipped', () => {
    const text = [
      '# a comment',
      '',
      line(
        'docker compose',
        'demo test',
        'docker-compose',
        'answers docker compose version|on-path docker-compose',
        'applies',
      ),
      line('kubectl', 'devbox test', 'kubectl@pkgs.k8s.io', 'version 1.22 kubectl version --client', 'renders'),
    ].join('\n');
    expect(parseToolList(text, 'tools.tsv')).toEqual([
      {
        program: 'docker compose',
        needs: ['demo', 'test'],
        package: 'docker-compose',
        repository: undefined,
        probes: [
          { kind: 'answers', command: 'docker', args: ['compose', 'version'] },
          { kind: 'on-path', name: 'docker-compose' },
        ],
        why: 'applies',
        line: 3,
      },
      {
        program: 'kubectl',
        needs: ['devbox', 'test'],
        package: 'kubectl',
        repository: 'pkgs.k8s.io',
        probes: [{ kind: 'version', minimum: [1, 22], command: 'kubectl', args: ['version', '--client'] }],
        why: 'renders',
        line: 4,
      },
    ]);
  });

  it.each([
    [
      line('git', 'demo', 'git', 'on-path git'),
      'line 1: line "git\\tdemo\\tgit\\ton-path git": expected 5 tab-separated fields',
    ],
    [line('git', 'demo prod', 'git', 'on-path git', 'x'), 'line 1: needs "demo prod"'],
    [line('git', 'demo', 'Git Package', 'on-path git', 'x'), 'line 1: package "Git Package"'],
    [line('git', 'demo', 'git', 'somewhere git', 'x'), 'line 1: probe "somewhere git"'],
    [line('pg', 'demo', 'postgresql-15', 'executable bin/postgres', 'x'), 'line 1: probe "executable bin/postgres"'],
    [line('kubectl', 'test', 'kubectl', 'version 1 kubectl', 'x'), 'line 1: probe "version 1 kubectl"'],
    [line('git', 'demo', 'git', 'on-path git', ''), 'line 1: why ""'],
  ])('refuses %j naming the file, line, field and value', (text, message) => {
    const error = (() => {
      try {
        return parseToolList(text, 'scripts/install-tools.tsv');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ToolListError);
    expect((error as ToolListError).message).toContain(`Cannot read scripts/install-tools.tsv ${message}`);
    expect((error as ToolListError).exitCode).toBe(2);
  });

  it('the shipped list has every program the project runs, each in the modes that run it', () => {
    const tools = parseToolList(readFileSync(LIST, 'utf8'), 'scripts/install-tools.tsv');
    const test = toolsFor(tools, 'test').map((t) => t.program);
    for (const program of [
      'dockerd',
      'docker',
      'docker compose',
      'docker-registry',
      'busybox',
      'postgres',
      'kubectl',
    ]) {
      expect(test).toContain(program);
    }
    for (const program of ['promtool', 'systemd-analyze', 'ansible-playbook', 'sshd', 'git', 'npm', 'make']) {
      expect(test).toContain(program);
    }
    expect(toolsFor(tools, 'demo').map((t) => t.program)).not.toContain('kubectl');
    expect(toolsFor(tools, 'devbox').map((t) => t.program)).toContain('kubectl');
    expect(toolsFor(tools, 'demo').map((t) => t.program)).not.toContain('promtool');
    // The engine and its CLI are two programs, each looked for itself.
    expect(tools.find((t) => t.program === 'dockerd')?.probes).toEqual([{ kind: 'on-path', name: 'dockerd' }]);
    expect(tools.find((t) => t.program === 'docker')?.probes).toEqual([{ kind: 'on-path', name: 'docker' }]);
  });
});
