// Follows saved files under the checkout with Node's recursive fs.watch (inotify on Linux), debounced.
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { isIgnoredPath } from './restart-decision.ts';

export interface FileWatcher {
  close(): void;
}

/** Calls `onChange` with the paths saved during a quiet period of `debounceMs`; ignored paths never trigger it. */
export function watchFiles(
  root: string,
  onChange: (paths: string[]) => void,
  options: { debounceMs?: number; onError?: (error: Error) => void } = {},
): FileWatcher {
  const debounceMs = options.debounceMs ?? 200;
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const watcher: FSWatcher = watch(root, { recursive: true }, (_event, name) => {
    if (name === null) return;
    const path = name.toString();
    if (isIgnoredPath(path)) return;
    pending.add(path);
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      const paths = [...pending].sort();
      pending.clear();
      onChange(paths);
    }, debounceMs);
  });
  watcher.on('error', (error) => options.onError?.(error));
  return {
    close() {
      if (timer !== undefined) clearTimeout(timer);
      watcher.close();
    },
  };
}
