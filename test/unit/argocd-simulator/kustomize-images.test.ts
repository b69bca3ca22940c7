import { describe, expect, it } from 'vitest';
import { parseImageOverride, parseImageRef } from '../../support/argocd-simulator/index.ts';

const DIGEST = `sha256:${'c'.repeat(64)}`;

describe('Argo CD kustomize.images entries read as `kustomize edit set image` reads them', () => {
  it('old=new@digest renames and pins by digest', () => {
    expect(parseImageOverride(`pharos/api=registry.pharos-build.svc.cluster.local:5000/api@${DIGEST}`)).toEqual({
      name: 'pharos/api',
      newName: 'registry.pharos-build.svc.cluster.local:5000/api',
      digest: DIGEST,
    });
  });
  it('name:tag keeps the name and sets the tag; a registry port is not a tag', () => {
    expect(parseImageOverride('localhost:5000/web:1.2')).toEqual({ name: 'localhost:5000/web', newTag: '1.2' });
    expect(parseImageRef('localhost:5000/web')).toEqual({ name: 'localhost:5000/web' });
  });
  it('name@digest pins the same name', () => {
    expect(parseImageOverride(`web@${DIGEST}`)).toEqual({ name: 'web', digest: DIGEST });
  });
});
