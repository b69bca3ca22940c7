import type { Exec } from '../ports/exec.ts';
import type { BaseImage } from './catalogue-bases.ts';
import { referenceDigest, splitReference } from './image-reference.ts';
import { SeedError } from './seed-error.ts';
import { MANIFEST_ACCEPT } from '../ports/registry-manifests.ts';

export interface SeedOptions {
  readonly run: Exec;
  /** The registry as the build Job names it (`registry.host` of the target profile). */
  readonly registry: string;
  /** The same registry as this workstation's Docker reaches it (a port-forward, or the same host). */
  readonly push: string;
  readonly timeoutMs: number;
  /** Answers a registry API request; `fetch` unless a test passes another. */
  readonly fetch?: typeof fetch;
  readonly progress?: (line: string) => void;
}

/** A base as the in-cluster registry now holds it. */
export interface SeededBase {
  readonly path: string;
  /** `<registry>/<repository>@sha256:…`, the digest the registry answers for the pushed manifest. */
  readonly reference: string;
}

const tail = (text: string) => text.trim().split('\n').slice(-2).join(' / ');

/** Pushes one base from this workstation's Docker, then asks the registry for the manifest by the digest pushed. */
async function seedOne(options: SeedOptions, base: BaseImage): Promise<SeededBase> {
  const { run, push, registry, timeoutMs } = options;
  const ref = splitReference(base.path);
  const wanted = referenceDigest(ref);
  const fail = (code: 'base-missing' | 'push-failed', why: string) =>
    new SeedError(
      code,
      `Cannot seed base image "${base.path}" (used by ${base.images.join(', ')}) into "${registry}": ${why}`,
      {
        details: { base: base.path, images: base.images, registry },
      },
    );
  if ((await run('docker', ['image', 'inspect', '--format', '{{.Id}}', base.path], { timeoutMs })).code !== 0)
    throw fail('base-missing', `this workstation's Docker has no image "${base.path}" (pull, load or build it first)`);
  // A digest cannot be pushed to: push a tag and require the registry to answer the same digest.
  const tag = `${push}/${ref.repository}:${wanted === undefined ? ref.suffix.replace(/^:/, '').replace(/@.*$/, '') : `seed-${wanted.slice(7, 19)}`}`;
  const tagged = await run('docker', ['tag', base.path, tag], { timeoutMs });
  if (tagged.code !== 0) throw fail('push-failed', `docker tag exited ${tagged.code}: ${tail(tagged.stderr)}`);
  try {
    const pushed = await run('docker', ['push', tag], { timeoutMs });
    const out = pushed.stdout.toString('utf8');
    const digest = /digest: (sha256:[0-9a-f]{64})/.exec(out)?.[1];
    if (pushed.code !== 0 || digest === undefined)
      throw fail('push-failed', `docker push ${tag} exited ${pushed.code}: ${tail(`${out}\n${pushed.stderr}`)}`);
    if (wanted !== undefined && digest !== wanted)
      throw fail('push-failed', `the registry holds it as ${digest}, not as the digest the Dockerfile names`);
    const answer = await (options.fetch ?? fetch)(`http://${push}/v2/${ref.repository}/manifests/${digest}`, {
      method: 'HEAD',
      headers: { accept: MANIFEST_ACCEPT },
      signal: AbortSignal.timeout(timeoutMs),
    }).catch((cause: Error) => ({ ok: false, status: cause.message }));
    if (!answer.ok)
      throw fail('push-failed', `the registry does not answer for ${digest} after the push (${answer.status})`);
    return { path: base.path, reference: `${registry}/${ref.repository}@${digest}` };
  } finally {
    // Only the extra name goes; the workstation's own image stays.
    await run('docker', ['image', 'rm', tag], { timeoutMs }).catch(() => undefined);
  }
}

/** Every base into the in-cluster registry, one at a time; a rerun pushes nothing new (the layers are there). */
export async function seedBases(options: SeedOptions, bases: readonly BaseImage[]): Promise<SeededBase[]> {
  const out: SeededBase[] = [];
  for (const base of bases) {
    const seeded = await seedOne(options, base);
    options.progress?.(`${base.path} → ${seeded.reference}`);
    out.push(seeded);
  }
  return out;
}
