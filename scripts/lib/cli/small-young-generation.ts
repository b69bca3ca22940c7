import * as v8 from 'node:v8';

// V8 doubles the young generation (up to 2 x 32 MiB) while objects survive its collections: a fingerprint of a large
// tree then holds ~50 MB it never needs. A growth factor of 1 keeps the first 1 MiB semi-spaces, at no measured cost
// in time (docs/benchmarks.md). Unlike the maximum size, the factor is read at each growth, so setting it after
// start works; runtimes without the flag ignore it.
try {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
} catch {
  // not V8's flag parser: nothing to tune
}
