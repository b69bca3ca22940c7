import * as nodeModule from 'node:module';

// V8's code cache roughly halves start-up (zod, yaml, cmd-ts, type stripping); Deno has no such switch.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
