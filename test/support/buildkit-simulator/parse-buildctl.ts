// Reads the `buildctl-daemonless.sh build …` arguments a BuildKit Job carries, as BuildKit would.
export interface BuildctlRequest {
  readonly gitUrl: string;
  readonly commit: string;
  readonly subdir: string;
  readonly filename: string;
  readonly target: string | undefined;
  readonly buildArgs: readonly (readonly [string, string])[];
  readonly platform: string | undefined;
  readonly imageName: string;
  readonly push: boolean;
  readonly metadataFile: string | undefined;
  /** `--export-cache`/`--import-cache` values; the simulator builds with the Docker engine's own layer cache instead. */
  readonly caches: readonly string[];
}

export function parseBuildctl(command: readonly string[], args: readonly string[]): BuildctlRequest {
  if (command[0] !== 'buildctl-daemonless.sh' || args[0] !== 'build')
    throw new Error(`not a buildctl build: ${[...command, ...args].join(' ')}`);
  const opts = new Map<string, string>();
  const buildArgs: [string, string][] = [];
  let output = '';
  let frontend = '';
  let metadataFile: string | undefined;
  const caches: string[] = [];
  for (let i = 1; i < args.length; i++) {
    const flag = args[i];
    const value = args[i + 1] ?? '';
    if (flag === '--opt') {
      const eq = value.indexOf('=');
      const key = value.slice(0, eq);
      if (key.startsWith('build-arg:')) {
        const pair = value.slice(eq + 1);
        buildArgs.push([key.slice('build-arg:'.length), pair]);
      } else opts.set(key, value.slice(eq + 1));
      i++;
    } else if (flag === '--output') {
      output = value;
      i++;
    } else if (flag === '--frontend') {
      frontend = value;
      i++;
    } else if (flag === '--metadata-file') {
      metadataFile = value;
      i++;
    } else if (flag === '--export-cache' || flag === '--import-cache') {
      if (!value.startsWith('type=registry,ref=')) throw new Error(`unsupported cache "${value}"`);
      caches.push(value);
      i++;
    } else if (flag === '--progress') i++;
    else throw new Error(`unknown buildctl flag ${flag}`);
  }
  if (frontend !== 'dockerfile.v0') throw new Error(`unsupported frontend "${frontend}"`);
  const context = opts.get('context') ?? '';
  const hash = context.lastIndexOf('#');
  if (hash < 0) throw new Error(`context "${context}" is not a Git URL with #<ref>`);
  const fragment = context.slice(hash + 1);
  const colon = fragment.indexOf(':');
  const outputs = new Map(
    output.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as const),
  );
  if (outputs.get('type') !== 'image') throw new Error(`unsupported output "${output}"`);
  return {
    gitUrl: context.slice(0, hash),
    commit: colon < 0 ? fragment : fragment.slice(0, colon),
    subdir: colon < 0 ? '' : fragment.slice(colon + 1),
    filename: opts.get('filename') ?? 'Dockerfile',
    target: opts.get('target'),
    buildArgs,
    platform: opts.get('platform'),
    imageName: outputs.get('name') ?? '',
    push: outputs.get('push') === 'true',
    metadataFile,
    caches,
  };
}
