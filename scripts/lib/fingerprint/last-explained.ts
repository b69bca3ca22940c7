import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IMAGE_NAME } from '../catalogue/catalogue-schema.ts';
import { ensureLocalDir, LOCAL_DIR } from './local-state.ts';

// `--explain` remembers each image's last encoding here, so the next run can say what changed since.
const folder = (root: string) => join(root, LOCAL_DIR, 'fingerprint', 'explained');

/** The encoding printed by the last `--explain` of this image in this repository, if any. */
export async function readLastExplained(root: string, image: string): Promise<string | undefined> {
  if (!IMAGE_NAME.test(image)) return undefined;
  return readFile(join(folder(root), `${image}.txt`), 'utf8').catch(() => undefined);
}

export async function saveLastExplained(root: string, image: string, encoding: string): Promise<void> {
  if (!IMAGE_NAME.test(image)) return;
  await ensureLocalDir(root, 'fingerprint', 'explained');
  await writeFile(join(folder(root), `${image}.txt`), encoding).catch(() => {}); // an unwritable checkout only loses the memory
}
