/** Every argument list of up to `most` pieces, each piece any of `pieces` (the empty list first). */
export function argumentLists(pieces: readonly string[], most = 3): string[][] {
  const all: string[][] = [[]];
  let level: string[][] = [[]];
  for (let n = 0; n < most; n++) {
    level = level.flatMap((argv) => pieces.map((piece) => [...argv, piece]));
    all.push(...level);
  }
  return all;
}
