// Follows saved files under the checkout, debounced: one non-recursive fs.watch (inotify on Linux) per directory.
// Node's recursive watch on Linux watches each file and loses one an editor replaces by a rename (nodejs/node#52879).
import { readdirSync, statSync, watch } from 'node:fs';
import type { Dirent, FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { isIgnoredPath } from './restart-decision.ts';

export interface FileWatcher {
  close(): void;
}

const gone = (error: unknown) => ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** Calls `onChange` with the paths saved during a quiet period of `debounceMs`; ignored paths never trigger it. */
export function watchFiles(
  root: string,
  onChange: (paths: string[]) => void,
  options: { debounceMs?: number; onError?: (error: Error) => void } = {},
): FileWatcher {
  const debounceMs = options.debounceMs ?? 200;
  const pending = new Set<string>();
  // Relative directory ('' for the root) → its watcher.
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const saved = (path: string) => {
    pending.add(path);
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      const paths = [...pending].sort();
      pending.clear();
      onChange(paths);
    }, debounceMs);
  };

  const drop = (dir: string) => {
    for (const [path, watcher] of watchers)
      if (path === dir || path.startsWith(`${dir}/`)) {
        watcher.close();
        watchers.delete(path);
      }
  };

  const add = (dir: string) => {
    if (closed || watchers.has(dir) || (dir !== '' && isIgnoredPath(dir))) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(join(root, dir), (event, name) => {
        if (name === null) return;
        const path = dir === '' ? name.toString() : `${dir}/${name.toString()}`;
        if (isIgnoredPath(path)) return;
        // A directory created, moved in or replaced gets a watcher of its own; one removed loses it.
        if (event === 'rename') {
          const directory = isDirectory(join(root, path));
          if (directory || watchers.has(path)) drop(path);
          if (directory) add(path);
        }
        saved(path);
      });
    } catch (error) {
      if (!gone(error)) options.onError?.(error as Error);
      return;
    }
    watcher.on('error', (error) => {
      drop(dir);
      if (!gone(error)) options.onError?.(error);
    });
    watchers.set(dir, watcher);
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch (error) {
      if (!gone(error)) options.onError?.(error as Error);
    }
    for (const entry of entries) if (entry.isDirectory()) add(dir === '' ? entry.name : `${dir}/${entry.name}`);
  };

  add('');
  return {
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
