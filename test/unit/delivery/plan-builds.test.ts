import { describe, expect, it } from 'vitest';
import { planBuilds } from '../../../scripts/lib/delivery/plan-builds.ts';
import { explainChange } from '../../../scripts/lib/fingerprint/explain-change.ts';
import { sha256Hex } from '../../../scripts/lib/fingerprint/encoding.ts';

const encoding = (args: string, file: string) =>
  `fingerprint/v1\nplatform\tlinux/amd64\ncontext\tapps/compat\ndockerfile\tapps/compat/Dockerfile\ntarget\t\n${args}file\t100644\t${file}\tapps/compat/src/build.sh\n`;
const fp = (name: string, text: string) => ({ name, fingerprint: sha256Hex(text), files: 1, encoding: text });
const ref = (name: string) => `reg:5000/${name}@sha256:${'1'.repeat(64)}`;

describe('planBuilds()', () => {
  const old = encoding('arg\tFLAVOUR\tweb\n', 'a'.repeat(64));
  it('keeps an image whose fingerprint equals the deployed one, with its reference', () => {
    const plan = planBuilds([fp('web', old)], {
      revision: 'r',
      images: { web: ref('web') },
      fingerprints: new Map([['web', fp('web', old)]]),
    });
    expect(plan).toEqual([
      { name: 'web', fingerprint: sha256Hex(old), build: false, reasons: ['unchanged'], reference: ref('web') },
    ]);
  });

  it('builds an image the cluster has no digest for', () => {
    const [item] = planBuilds([fp('web', old)], { revision: undefined, images: {}, fingerprints: new Map() });
    expect(item).toMatchObject({ build: true, reasons: ['no image in the cluster yet'] });
  });

  it('builds with the changed file and arg named as the reasons', () => {
    const now = encoding('arg\tFLAVOUR\tadmin\n', 'b'.repeat(64));
    const [item] = planBuilds([fp('web', now)], {
      revision: 'r',
      images: { web: ref('web') },
      fingerprints: new Map([['web', fp('web', old)]]),
    });
    expect(item?.build).toBe(true);
    expect(item?.reasons).toEqual(['build arg "FLAVOUR" changed', 'file "apps/compat/src/build.sh" changed']);
  });

  it('builds every image when the deployed revision cannot be read, saying so', () => {
    const [item] = planBuilds([fp('web', old)], {
      revision: 'c'.repeat(40),
      images: { web: ref('web') },
      fingerprints: undefined,
    });
    expect(item?.reasons[0]).toContain('cannot be read');
  });
});

describe('explainChange()', () => {
  it('names added and removed files', () => {
    const a = 'fingerprint/v1\nfile\t100644\tx\ta.sh\n';
    const b = 'fingerprint/v1\nfile\t100755\tx\ta.sh\nfile\t100644\ty\tb.sh\n';
    expect(explainChange(a, b)).toEqual(['file "a.sh" changed', 'file "b.sh" added']);
    expect(explainChange(b, a)).toEqual(['file "a.sh" changed', 'file "b.sh" removed']);
  });
});
