/** Why two `fingerprint/v1` encodings differ, one short reason per changed header, arg or file. */
export function explainChange(before: string, after: string): string[] {
  const a = keyed(before);
  const b = keyed(after);
  const reasons: string[] = [];
  for (const [key, value] of b) {
    const old = a.get(key);
    if (old === value) continue;
    reasons.push(old === undefined ? `${describe(key)} added` : `${describe(key)} changed`);
  }
  for (const key of a.keys()) if (!b.has(key)) reasons.push(`${describe(key)} removed`);
  return reasons;
}

/** Each line keyed by what it is about: `platform`, `arg\tNAME`, `file\tpath`. */
function keyed(encoding: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of encoding.split('\n')) {
    if (line === '' || !line.includes('\t')) continue;
    const [kind, ...rest] = line.split('\t');
    if (kind === 'arg') out.set(`arg\t${rest[0]}`, rest[1] ?? '');
    else if (kind === 'file') out.set(`file\t${rest[2]}`, `${rest[0]}\t${rest[1]}`);
    else out.set(kind ?? '', rest.join('\t'));
  }
  return out;
}

function describe(key: string): string {
  const [kind, name] = key.split('\t');
  if (kind === 'file') return `file "${name}"`;
  if (kind === 'arg') return `build arg "${name}"`;
  return kind ?? key;
}
