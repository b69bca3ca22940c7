import { describe, expect, it } from 'vitest';
import { brief, check, cleanPlatform } from './fixture.ts';

describe('check: Dockerfile rules', () => {
  it('finds nothing on a platform whose Dockerfiles read only their inputs', async () => {
    expect(await check(cleanPlatform())).toEqual([]);
  });

  it('copy-outside-inputs: a COPY source outside every input', async () => {
    const files = { ...cleanPlatform(), 'api/Dockerfile': 'FROM base\nCOPY lib/ /lib/\nCOPY docs/guide.md /doc\n' };
    const findings = await check(files);
    expect(brief(findings)).toEqual(['copy-outside-inputs api api/Dockerfile:3']);
    expect(findings[0]?.severity).toBe('error');
    expect(findings[0]?.message).toContain('"docs/guide.md"');
  });

  it('copy-outside-inputs: COPY . needs the whole context covered', async () => {
    const files = { ...cleanPlatform(), 'api/Dockerfile': 'FROM base\nCOPY . /src/\n' };
    const findings = await check(files);
    expect(brief(findings)).toEqual(['copy-outside-inputs api api/Dockerfile:2']);
    expect(findings[0]?.message).toContain('the whole context "."');
  });

  it('copy-outside-inputs: a source resolves against the context and `..` cannot leave it', async () => {
    const files = { ...cleanPlatform(), 'web/Dockerfile': 'FROM base\nCOPY ../../api/src /x\n' };
    // ../../api/src clamps to web/api/src: inside the web input, so nothing to report
    expect(await check(files)).toEqual([]);
    files['web/Dockerfile'] = 'FROM base\nCOPY store /x\n';
    expect(await check(files)).toEqual([]);
  });

  it('copy-outside-inputs: a glob is matched against the tree, each match checked', async () => {
    const ok = { ...cleanPlatform(), 'api/Dockerfile': 'FROM base\nCOPY api/*/main.sh lib/*.sh /app/\n' };
    expect(await check(ok)).toEqual([]);
    const bad = { ...cleanPlatform(), 'api/Dockerfile': 'FROM base\nCOPY */*.md /app/\n' };
    const findings = await check(bad);
    expect(brief(findings)).toEqual(['copy-outside-inputs api api/Dockerfile:2']);
    expect(findings[0]?.message).toContain('"docs/guide.md"');
  });

  it('copy-outside-inputs: a RUN --mount=type=bind source counts as a read', async () => {
    const files = {
      ...cleanPlatform(),
      'api/Dockerfile': 'FROM base\nCOPY lib/ /lib/\nRUN --mount=type=bind,source=docs,target=/d ls /d\n',
    };
    expect(brief(await check(files))).toEqual(['copy-outside-inputs api api/Dockerfile:3']);
  });

  it('copy-outside-inputs: substitutes the entry args into sources', async () => {
    const files = cleanPlatform();
    files['gitops/manifests/images.yaml'] = files['gitops/manifests/images.yaml']!.replace(
      'args: {APP: store}',
      'args: {APP: ../docs}',
    );
    // ../docs clamps to the context root "web": inside the input
    expect(await check(files)).toEqual([]);
    files['gitops/manifests/images.yaml'] = files['gitops/manifests/images.yaml']!.replace(
      'inputs: [web]',
      'inputs: [web/store]',
    ).replace('args: {APP: ../docs}', 'args: {APP: admin}');
    expect(brief(await check(files))).toEqual(['copy-outside-inputs web web/Dockerfile:3']);
  });

  it('copy-excluded: a source that only reaches excluded files', async () => {
    const files = { ...cleanPlatform(), 'api/Dockerfile': 'FROM base\nCOPY lib/ /lib/\nCOPY api/README.md /app/\n' };
    const findings = await check(files);
    expect(brief(findings)).toEqual(['copy-excluded api api/Dockerfile:3']);
    expect(findings[0]?.severity).toBe('error');
  });

  it('copy-excluded: not raised when a source reaches some kept files too', async () => {
    const files = { ...cleanPlatform(), 'api/Dockerfile': 'FROM base\nCOPY api/ /app/\nCOPY lib/ /lib/\n' };
    expect(await check(files)).toEqual([]);
  });

  it('remote-add: warns on ADD <url>, and the warning alone does not make an error', async () => {
    const files = {
      ...cleanPlatform(),
      'api/Dockerfile': 'FROM base\nCOPY lib/ /lib/\nADD https://example.com/ca.pem /etc/ca.pem\n',
    };
    const findings = await check(files);
    expect(brief(findings)).toEqual(['remote-add api api/Dockerfile:3']);
    expect(findings[0]?.severity).toBe('warning');
  });

  it('bad-dockerfile: a target the Dockerfile has no stage for', async () => {
    const files = cleanPlatform();
    files['gitops/manifests/images.yaml'] = files['gitops/manifests/images.yaml']!.replace(
      '    dockerfile: api/Dockerfile\n',
      '    dockerfile: api/Dockerfile\n    target: prod\n',
    );
    expect(brief(await check(files))).toEqual(['bad-dockerfile api api/Dockerfile:1']);
  });

  it('bad-dockerfile: an unknown target lists the stages the Dockerfile has', async () => {
    const files = cleanPlatform();
    files['gitops/manifests/images.yaml'] = files['gitops/manifests/images.yaml']!.replace(
      '    dockerfile: api/Dockerfile\n',
      '    dockerfile: api/Dockerfile\n    target: prod\n',
    );
    files['api/Dockerfile'] =
      'FROM base AS build\nCOPY lib/ /lib/\nFROM base\nFROM base AS Runtime\nCOPY --from=build /lib /lib\n';
    const [found] = await check(files);
    expect(found?.message).toBe(
      'Cannot analyse the build of "api": build target "prod" is not a stage of this Dockerfile: its stages are "build", "runtime"',
    );
    files['api/Dockerfile'] = 'FROM base\nCOPY lib/ /lib/\n';
    expect((await check(files))[0]?.message).toBe(
      'Cannot analyse the build of "api": build target "prod" is not a stage of this Dockerfile: it names no stage ("FROM … AS name")',
    );
  });

  it('remote-add: names an ARG the URL uses that has no value, instead of printing the URL blanked silently', async () => {
    const files = {
      ...cleanPlatform(),
      'api/Dockerfile':
        'FROM base\nARG VERSION\nARG OS=linux\nCOPY lib/ /lib/\nADD https://example.com/${VERSION}/tool-$OS.tgz /opt/\n',
    };
    const [found] = await check(files);
    expect(found?.rule).toBe('remote-add');
    expect(found?.message).toBe(
      'ADD "https://example.com//tool-linux.tgz" fetches content the fingerprint cannot see; a change there rebuilds nothing; "VERSION" has no value here (no ARG default, no catalogue arg), so the URL is fetched with it blank',
    );
  });

  it('copy-outside-inputs: copying the Dockerfile itself is covered, since it is in every file set', async () => {
    const files = cleanPlatform();
    files['gitops/manifests/images.yaml'] = files['gitops/manifests/images.yaml']!.replace(
      'inputs: [api, lib]',
      'inputs: [api/src, lib]',
    );
    files['api/Dockerfile'] = 'FROM base\nCOPY lib/ /lib/\nCOPY api/Dockerfile /Dockerfile\n';
    expect(await check(files)).toEqual([]);
  });
});
