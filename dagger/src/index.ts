// The Dagger module (docs/dagger.md): every function parses its arguments, calls the library (lib/, the copy of
// scripts/lib), and hands builds to the engine. No rule lives here; decorators live only in dagger/.
import { argument, check, dag, func, object } from '@dagger.io/dagger';
import type { Container, Directory, File, Secret } from '@dagger.io/dagger';
import { checkPlatform, formatReport, reportJson } from '../lib/check/index.ts';
import { fingerprintImages, fingerprintReport, loadCatalogue, openSource } from '../lib/fingerprint/index.ts';
import { lockFileName } from '../lib/lock/lock-schema.ts';
import { checkReleaseInputs, parseBuilt, prepareReleaseLock } from '../lib/lock/prepare-release-lock.ts';
import { loadSigningKey, signWithKey } from '../lib/signing/sign-with-key.ts';
import {
  imageName,
  parseArgument,
  registry as registryArg,
  revision,
  url,
  username as usernameArg,
} from './arguments.ts';
import { buildImage, publishImage } from './image-build.ts';
import type { RegistryLogin } from './image-build.ts';
import { ModuleError } from './module-error.ts';
import { planImage, planImages } from './plan-images.ts';
import { previousFingerprints } from './previous-fingerprints.ts';
import { withSourceFolder } from './source-folder.ts';

function login(registry: string, username: string | undefined, password: Secret | undefined): RegistryLogin {
  if ((username === undefined) !== (password === undefined))
    throw new ModuleError('bad-argument', 'Invalid arguments "username" and "password": pass both or neither');
  return {
    registry: parseArgument('registry', registryArg, registry),
    username: username === undefined ? undefined : parseArgument('username', usernameArg, username),
    password,
  };
}

/** Exactly one of a key (signed here) and an OIDC token (keyless, as `prepare-release-lock.ts --keyless`). */
async function signer(
  key: Secret | undefined,
  oidcToken: Secret | undefined,
  fulcioUrl: string | undefined,
  rekorUrl: string | undefined,
): Promise<(bytes: Buffer) => Promise<string>> {
  if ((key === undefined) === (oidcToken === undefined))
    throw new ModuleError(
      'bad-argument',
      'Invalid arguments "key" and "oidcToken": pass exactly one (a P-256 PEM key, or the CI\'s OIDC token for keyless signing)',
    );
  if (key !== undefined) {
    const signingKey = loadSigningKey(await key.plaintext(), `secret ${await key.name()}`);
    return async (bytes) => signWithKey(bytes, signingKey);
  }
  const fulcioURL = fulcioUrl === undefined ? undefined : parseArgument('fulcioUrl', url, fulcioUrl);
  const rekorURL = rekorUrl === undefined ? undefined : parseArgument('rekorUrl', url, rekorUrl);
  const identityToken = await (oidcToken as Secret).plaintext();
  // sigstore's signing stack takes a quarter second to load: only keyless signing pays for it.
  const { signKeyless } = await import('../lib/signing/sign-keyless.ts');
  return (bytes) =>
    signKeyless(bytes, {
      identityToken,
      ...(fulcioURL === undefined ? {} : { fulcioURL }),
      ...(rekorURL === undefined ? {} : { rekorURL }),
    });
}

@object()
export class Pharos {
  /**
   * The fingerprint/v1 of every catalogue image, as the JSON `scripts/fingerprint.ts --json` prints:
   * of the source's working tree, or of commit `rev` (the source must then hold `.git`).
   */
  @func()
  async fingerprint(source: Directory, rev?: string): Promise<string> {
    const at = rev === undefined ? undefined : parseArgument('rev', revision, rev);
    return withSourceFolder(source, async (folder) => {
      const tree = await openSource(folder, at);
      return fingerprintReport(tree.id, await fingerprintImages(tree, await loadCatalogue(tree)));
    });
  }

  /** The catalogue check of the source as JSON ({"schema":1,"findings":[…]}), as `scripts/check-platform-gitops.ts --json` prints it. */
  @func()
  async check(source: Directory): Promise<string> {
    return withSourceFolder(source, async (folder) => {
      const tree = await openSource(folder, undefined);
      return reportJson(await checkPlatform(tree, await loadCatalogue(tree), { log: () => {} }));
    });
  }

  /** Fails when the catalogue check finds an error (warnings pass): what `dagger check` runs on this repository. */
  @func()
  @check()
  async catalogueCheck(@argument({ defaultPath: '/' }) source: Directory): Promise<void> {
    await withSourceFolder(source, async (folder) => {
      const tree = await openSource(folder, undefined);
      const catalogue = await loadCatalogue(tree);
      const findings = await checkPlatform(tree, catalogue, { log: () => {} });
      if (findings.some((f) => f.severity === 'error')) {
        throw new ModuleError(
          'check-failed',
          `Catalogue check failed:\n${formatReport(findings, { images: catalogue.images.length, source: tree.id })}`,
          { details: { errors: findings.filter((f) => f.severity === 'error').length } },
        );
      }
    });
  }

  /** Builds catalogue image `image` with its Dockerfile, context, target, build args and platform, labelled with its fingerprint and the commit. */
  @func()
  async build(source: Directory, image: string): Promise<Container> {
    const name = parseArgument('image', imageName, image);
    return buildImage(source, await withSourceFolder(source, (folder) => planImage(folder, name)));
  }

  /** Builds `image` and pushes it to `registry` (e.g. "ghcr.io/acme"); returns `<registry>/<image>@sha256:…`. */
  // Pushes (or signs): the engine must run it every time, never answer from its function cache.
  @func({ cache: 'never' })
  async publish(
    source: Directory,
    image: string,
    registry: string,
    username?: string,
    password?: Secret,
  ): Promise<string> {
    const name = parseArgument('image', imageName, image);
    const to = login(registry, username, password);
    const planned = await withSourceFolder(source, (folder) => planImage(folder, name));
    return publishImage(buildImage(source, planned), planned, to);
  }

  /**
   * Builds and pushes, in parallel, only the images whose fingerprint differs from what was last built: the
   * fingerprints of `receipt` (a dev box receipt) or the fingerprint labels of the images `lock` (a release lock)
   * pins; every image with neither. Returns the JSON map {"<catalogue name>": "<registry>/<image>@sha256:…"} of those pushed.
   */
  // Pushes (or signs): the engine must run it every time, never answer from its function cache.
  @func({ cache: 'never' })
  async buildChanged(
    source: Directory,
    registry: string,
    receipt?: File,
    lock?: File,
    username?: string,
    password?: Secret,
  ): Promise<string> {
    const to = login(registry, username, password);
    const plan = await withSourceFolder(source, (folder) => planImages(folder, undefined));
    const before = await previousFingerprints(
      plan.catalogue.images.map((e) => e.name),
      receipt,
      lock,
    );
    const changed = plan.images.filter((p) => before?.get(p.entry.name) !== p.fingerprint);
    const pushed = await Promise.all(
      changed.map(async (p) => [p.entry.name, await publishImage(buildImage(source, p), p, to)] as const),
    );
    return `${JSON.stringify(Object.fromEntries(pushed))}\n`;
  }

  /**
   * The signed release lock (schema 1) of `release` at `commit` from the digests in `built` (JSON {"<name>": "<registry>/<image>@sha256:…"}),
   * signed with the P-256 PKCS#8 PEM `key`, or keyless with the CI's `oidcToken` through Fulcio and Rekor:
   * a directory holding release-<tag>.json and its .sigstore.json bundle, as deploy-state's locks/ holds them.
   */
  // Pushes (or signs): the engine must run it every time, never answer from its function cache.
  @func({ cache: 'never' })
  async releaseLock(
    source: Directory,
    release: string,
    commit: string,
    built: File,
    key?: Secret,
    oidcToken?: Secret,
    fulcioUrl?: string,
    rekorUrl?: string,
  ): Promise<Directory> {
    checkReleaseInputs(release, commit);
    const sign = await signer(key, oidcToken, fulcioUrl, rekorUrl);
    const digests = parseBuilt(await built.contents(), await built.name());
    const prepared = await withSourceFolder(source, async (folder) => {
      const catalogue = await loadCatalogue(await openSource(folder, commit));
      return prepareReleaseLock({ release, commit, catalogue, built: digests, sign });
    });
    const file = lockFileName(release, 'compose');
    return dag
      .directory()
      .withNewFile(file, prepared.bytes.toString('utf8'))
      .withNewFile(`${file}.sigstore.json`, prepared.bundle ?? '');
  }
}
