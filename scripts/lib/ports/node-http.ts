// node:http loaded through require: an ESM import of it builds a namespace of every export, which runs its lazy
// getters (WebSocket and its kin load undici: ~30 ms at start-up, measured); the port needs only request and Agent.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const http: typeof import('node:http') = require('node:http');
