import { describe, expect, it } from 'vitest';
import { brief, check, cleanPlatform } from './fixture.ts';

const edit = (from: string, to: string) => {
  const files = cleanPlatform();
  files['gitops/manifests/images.yaml'] = files['gitops/manifests/images.yaml']!.replace(from, to);
  return files;
};

describe('check: catalogue paths', () => {
  it('missing-input: names the input and the catalogue line of that list item', async () => {
    const findings = await check(edit('inputs: [api, lib]', 'inputs:\n      - api\n      - lib\n      - proto'));
    expect(brief(findings)).toEqual(['missing-input api gitops/manifests/images.yaml:12']);
    expect(findings[0]?.message).toContain('"proto"');
  });

  it('missing-dockerfile: reported at the dockerfile key, and the absent Dockerfile is not analysed', async () => {
    const findings = await check(edit('dockerfile: api/Dockerfile', 'dockerfile: api/Containerfile'));
    expect(brief(findings)).toEqual(['missing-dockerfile api gitops/manifests/images.yaml:8']);
  });

  it('missing-context: reported at the context key, with no noise from sources resolved against it', async () => {
    const findings = await check(edit('context: web', 'context: webapp'));
    expect(brief(findings)).toEqual(['missing-context web gitops/manifests/images.yaml:13']);
  });
});
