// The type of .dependency-cruiser.mjs, for the test that checks its rules (test/unit/import-rules/).
import type { IConfiguration } from 'dependency-cruiser';

declare const config: IConfiguration;
export default config;
