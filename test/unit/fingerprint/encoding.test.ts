// The fingerprint/v1 text, file modes and path order, byte for byte as docs/formats/fingerprint-encoding.md defines them:
// a change in any of them moves every fingerprint, so each is pinned here without git or a file system.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ImageEntry } from '../../../scripts/lib/catalogue/catalogue.ts';
import type { FileLine } from '../../../scripts/lib/fingerprint/encoding.ts';
import { compareBytewise } from '../../../scripts/lib/catalogue/compare-bytewise.ts';
import {
  encodeHeader,
  encodeImage,
  ENCODING_VERSION,
  FileLineHasher,
  fileLine,
  sha256Hex,
} from '../../../scripts/lib/fingerprint/encoding.ts';
import { modeFromGit, modeFromStat } from '../../../scripts/lib/fingerprint/file-mode.ts';

const api: ImageEntry = {
  name: 'api',
  image: 'pharos/api',
  application: 'pharos',
  context: '.',
  dockerfile: 'services/api/Dockerfile',
  target: undefined,
  args: [['APP', 'realtime-gateway']],
  platform: 'linux/amd64',
  inputs: ['services/api/'],
  exclude: [],
  takeover: undefined,
};
const H1 = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const H2 = '2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae';

describe('the fingerprint/v1 text', () => {
  it('is the documented example, line for line', () => {
    const files = [
      { path: 'services/api/Dockerfile', mode: '100644' as const, sha256: H1 },
      { path: 'services/api/run.sh', mode: '100755' as const, sha256: H2 },
    ];
    expect(encodeImage(api, files)).toBe(
      'fingerprint/v1\nplatform\tlinux/amd64\ncontext\t.\ndockerfile\tservices/api/Dockerfile\ntarget\t\narg\tAPP\trealtime-gateway\n' +
        `file\t100644\t${H1}\tservices/api/Dockerfile\nfile\t100755\t${H2}\tservices/api/run.sh\n`,
    );
    expect(ENCODING_VERSION).toBe('fingerprint/v1');
  });

  it('writes the target when there is one and one line per arg in the given order', () => {
    const entry: ImageEntry = {
      ...api,
      target: 'runtime',
      args: [
        ['A', '1'],
        ['B', 'x y'],
      ],
    };
    expect(encodeHeader(entry)).toBe(
      'fingerprint/v1\nplatform\tlinux/amd64\ncontext\t.\ndockerfile\tservices/api/Dockerfile\ntarget\truntime\narg\tA\t1\narg\tB\tx y\n',
    );
  });

  it('an image with no args and no files is the header alone', () => {
    expect(encodeImage({ ...api, args: [] }, [])).toBe(
      'fingerprint/v1\nplatform\tlinux/amd64\ncontext\t.\ndockerfile\tservices/api/Dockerfile\ntarget\t\n',
    );
  });

  it('a file line is mode, content hash and path, tab-separated', () => {
    expect(fileLine({ path: 'a b/c', mode: '120000', sha256: H1 })).toBe(`file\t120000\t${H1}\ta b/c\n`);
  });

  it('sha256Hex() is the lowercase hex SHA-256 of text or bytes', () => {
    expect(sha256Hex('test')).toBe(H1);
    expect(sha256Hex(new Uint8Array([0x66, 0x6f, 0x6f]))).toBe(createHash('sha256').update('foo').digest('hex'));
  });
});

describe('FileLineHasher', () => {
  it('feeds a hash the very bytes of fileLine(), across its buffer boundaries and for a path longer than it', () => {
    const files = Array.from({ length: 2000 }, (_, i) => ({
      path: i === 700 ? 'p/'.repeat(40_000) : `dir ${i % 9}/ünï名-${i}.ts`,
      mode: (i % 3 === 0 ? '100755' : i % 3 === 1 ? '120000' : '100644') as '100644',
      sha256: i % 2 === 0 ? H1 : H2,
    }));
    const lines = new FileLineHasher(createHash('sha256').update('head\n'));
    for (const f of files) lines.add(f.mode, f.sha256, f.path);
    expect(lines.end().digest('hex')).toBe(sha256Hex(`head\n${files.map(fileLine).join('')}`));
  });
});

describe('file modes', () => {
  const stat = (mode: number, link = false) => ({ isSymbolicLink: () => link, mode });

  it('modeFromStat(): a symlink is 120000 whatever its mode bits', () => {
    expect(modeFromStat(stat(0o120777, true))).toBe('120000');
    expect(modeFromStat(stat(0o100644, true))).toBe('120000');
  });

  it('modeFromStat(): only the owner-execute bit makes 100755', () => {
    expect(modeFromStat(stat(0o100755))).toBe('100755');
    expect(modeFromStat(stat(0o100744))).toBe('100755');
    expect(modeFromStat(stat(0o100100))).toBe('100755');
    expect(modeFromStat(stat(0o100655))).toBe('100644');
    expect(modeFromStat(stat(0o100011))).toBe('100644');
    expect(modeFromStat(stat(0o100644))).toBe('100644');
  });

  it('modeFromGit(): git modes as the fingerprint names them, nothing for what is not a file', () => {
    expect(modeFromGit('100644')).toBe('100644');
    expect(modeFromGit('100664')).toBe('100644');
    expect(modeFromGit('100755')).toBe('100755');
    expect(modeFromGit('120000')).toBe('120000');
    expect(modeFromGit('160000')).toBeUndefined();
    expect(modeFromGit('040000')).toBeUndefined();
    expect(modeFromGit('')).toBeUndefined();
  });
});

describe('compareBytewise()', () => {
  const sorted = (xs: string[]) => [...xs].sort(compareBytewise);
  const utf8Order = (xs: string[]) => [...xs].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

  it('orders by UTF-8 bytes: "-" and "." before "/", upper case before lower case', () => {
    expect(sorted(['a/b', 'a.b/y', 'a-b/x', 'B', 'a'])).toEqual(['B', 'a', 'a-b/x', 'a.b/y', 'a/b']);
  });

  it('puts an astral character after every BMP character, as UTF-8 does (UTF-16 would not)', () => {
    const names = ['\u{1F600}', '\uFFFD', '\uE000', 'z', '\u00E9'];
    expect(sorted(names)).toEqual(utf8Order(names));
    expect(sorted(names)).toEqual(['z', '\u00E9', '\uE000', '\uFFFD', '\u{1F600}']);
    expect(compareBytewise('\u{1F600}', '\uFFFD')).toBeGreaterThan(0);
    expect(compareBytewise('\uFFFD', '\u{1F600}')).toBeLessThan(0);
  });

  it('orders two astral characters by code point, and the boundaries of the surrogate range correctly', () => {
    expect(compareBytewise('\u{1F600}', '\u{1F601}')).toBeLessThan(0);
    expect(compareBytewise('\u{10000}', '\u{1F600}')).toBeLessThan(0);
    expect(compareBytewise('\u{10FFFF}', '\u{10000}')).toBeGreaterThan(0);
    // U+D7FF is the last BMP character before the surrogates, U+E000 the first after them.
    expect(compareBytewise('\uD7FF', '\u{10000}')).toBeLessThan(0);
    expect(compareBytewise('\u{10000}', '\uD7FF')).toBeGreaterThan(0);
    expect(compareBytewise('\uE000', '\u{10000}')).toBeLessThan(0);
    expect(compareBytewise('\u{10000}', '\uE000')).toBeGreaterThan(0);
    // U+10FFFF ends in the last low surrogate, 0xDFFF.
    expect(compareBytewise('\u{10FFFF}', '\u{10FFFE}')).toBeGreaterThan(0);
    expect(compareBytewise('\u{10FFFE}', '\u{10FFFF}')).toBeLessThan(0);
  });

  it('a prefix sorts first; equal strings compare equal', () => {
    expect(compareBytewise('a', 'ab')).toBeLessThan(0);
    expect(compareBytewise('ab', 'a')).toBeGreaterThan(0);
    expect(compareBytewise('same', 'same')).toBe(0);
    expect(compareBytewise('', '')).toBe(0);
  });

  it('agrees with Buffer.compare of the UTF-8 bytes on a mixed set', () => {
    const names = [
      'a',
      'A',
      'é',
      '\u{1F600}b',
      '\u{1F600}a',
      'a\u{1F600}',
      'a\uFFFF',
      '\uD7FF',
      '\u{10000}',
      'a/b',
      'a.b',
      '',
    ];
    expect(sorted(names)).toEqual(utf8Order(names));
  });
});

const LINE_SHA = 'ab'.repeat(32);

function viaHasher(lines: readonly FileLine[]): string {
  const hasher = new FileLineHasher(createHash('sha256'));
  for (const l of lines) hasher.add(l.mode, l.sha256, l.path);
  return hasher.end().digest('hex');
}

const viaText = (lines: readonly FileLine[]) => createHash('sha256').update(lines.map(fileLine).join('')).digest('hex');

const line = (path: string, i: number): FileLine => ({
  path,
  mode: i % 3 === 0 ? '100755' : '100644',
  sha256: i % 2 === 0 ? LINE_SHA : 'cd'.repeat(32),
});

describe('FileLineHasher: whatever the lines, the digest of their text as fileLine() writes it', () => {
  it('hashes the lines of a tree larger than its buffer as their text', () => {
    const lines = Array.from({ length: 4000 }, (_, i) => line(`services/api/src/module-${i}/index.ts`, i));
    expect(viaHasher(lines)).toBe(viaText(lines));
  });

  it('counts a path by its UTF-8 bytes, not its characters, when deciding to flush', () => {
    // Each 漢 is one UTF-16 unit and three UTF-8 bytes: counted by characters, a buffer near full would truncate.
    const lines = Array.from({ length: 3000 }, (_, i) => line(`docs/${'漢'.repeat(40 + (i % 17))}-${i}.md`, i));
    expect(viaHasher(lines)).toBe(viaText(lines));
  });

  it('leaves room for every byte of a line whose path is all three-byte characters', () => {
    // Nothing ASCII in the path to over-count: the estimate must be exact or above for each of these lengths.
    const lines = Array.from({ length: 5000 }, (_, i) => line('漢'.repeat(1 + ((i * 7) % 211)), i));
    expect(viaHasher(lines)).toBe(viaText(lines));
  });

  it('hashes a line longer than its buffer whole, between shorter ones', () => {
    const lines = [
      line('a.txt', 0),
      line(`deep/${'x'.repeat(70_000)}`, 1),
      line(`wide/${'漢'.repeat(25_000)}`, 2),
      line('z.txt', 3),
    ];
    expect(viaHasher(lines)).toBe(viaText(lines));
  });

  it("gives the empty text's digest when no line was added", () => {
    expect(viaHasher([])).toBe(createHash('sha256').update('').digest('hex'));
  });
});
