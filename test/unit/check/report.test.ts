import { describe, expect, it } from 'vitest';
import { finding, formatReport, reportJson } from '../../../scripts/lib/check/index.ts';

const findings = [
  finding('copy-outside-inputs', 'api', 'api/Dockerfile', 3, 'COPY source "docs" reads …'),
  finding('remote-add', 'api', 'api/Dockerfile', 5, 'ADD "https://x" …'),
  finding('uncatalogued-image', 'acme/report', 'gitops/manifests/r.yaml', 12, 'container image …'),
];

describe('check report', () => {
  it('prints file:line rule message grouped by image, then one summary line', () => {
    expect(formatReport(findings, { images: 2, source: 'worktree' })).toBe(
      [
        'api:',
        '  api/Dockerfile:3 copy-outside-inputs COPY source "docs" reads …',
        '  api/Dockerfile:5 remote-add (warning) ADD "https://x" …',
        'acme/report:',
        '  gitops/manifests/r.yaml:12 uncatalogued-image container image …',
        'check: 2 errors, 1 warning in 2 catalogue images (source worktree)',
        '',
      ].join('\n'),
    );
  });

  it('prints only the summary when the platform is clean', () => {
    expect(formatReport([], { images: 1, source: 'abc' })).toBe(
      'check: 0 errors, 0 warnings in 1 catalogue image (source abc)\n',
    );
  });

  it('emits schema 1 JSON with exactly the documented fields', () => {
    const parsed = JSON.parse(reportJson(findings.slice(0, 1)));
    expect(parsed).toEqual({
      schema: 1,
      findings: [
        {
          rule: 'copy-outside-inputs',
          severity: 'error',
          image: 'api',
          file: 'api/Dockerfile',
          line: 3,
          message: 'COPY source "docs" reads …',
        },
      ],
    });
  });
});
