// The floor of an unchanged host tick in one Node process: Node, plus the libraries the tick cannot do without,
// loaded as reconcile-deployment.ts loads them (compile cache on, zod without its locales, sigstore's verifier).
import { enableHostCompileCache } from '../../../scripts/lib/host/host-compile-cache.ts';
import { skipZodLocales } from '../../../scripts/lib/errors/skip-zod-locales.ts';

enableHostCompileCache();
skipZodLocales();
await Promise.all([import('zod'), import('@sigstore/bundle'), import('@sigstore/verify')]);
