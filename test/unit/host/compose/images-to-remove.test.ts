import { describe, expect, it } from 'vitest';
import { imagesToRemove, repositoryOf } from '../../../../scripts/lib/host/compose/images-to-remove.ts';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const api = 'registry.example/acme/api';

describe('imagesToRemove(): the images pruning may remove', () => {
  it('removes an untagged image of a release repository that no kept reference resolves to, by each of its digests', () => {
    const images = [{ id: 'sha256:old', tags: [], digests: [`${api}@${D1}`, `${api}@${D2}`] }];
    expect(imagesToRemove(images, new Set([api]), new Set(['sha256:new']))).toEqual([
      { reference: `${api}@${D1}`, id: 'sha256:old' },
      { reference: `${api}@${D2}`, id: 'sha256:old' },
    ]);
  });

  it('keeps an image a kept reference resolves to', () => {
    expect(
      imagesToRemove(
        [{ id: 'sha256:kept', tags: [], digests: [`${api}@${D1}`] }],
        new Set([api]),
        new Set(['sha256:kept']),
      ),
    ).toEqual([]);
  });

  it('keeps a tagged image: it belongs to someone else', () => {
    expect(
      imagesToRemove(
        [{ id: 'sha256:x', tags: [`${api}:latest`], digests: [`${api}@${D1}`] }],
        new Set([api]),
        new Set(),
      ),
    ).toEqual([]);
  });

  it('keeps images of other repositories, and only removes the digests of release repositories', () => {
    const images = [
      { id: 'sha256:other', tags: [], digests: [`docker.io/library/postgres@${D1}`] },
      { id: 'sha256:both', tags: [], digests: [`docker.io/library/postgres@${D2}`, `${api}@${D2}`] },
    ];
    expect(imagesToRemove(images, new Set([api]), new Set())).toEqual([
      { reference: `${api}@${D2}`, id: 'sha256:both' },
    ]);
  });

  it('reads the repository up to the last "@" (a registry with a port, a digest reference)', () => {
    expect(repositoryOf(`127.0.0.1:5000/acme/api@${D1}`)).toBe('127.0.0.1:5000/acme/api');
    expect(repositoryOf(`a@b/api@${D1}`)).toBe('a@b/api');
  });
});
