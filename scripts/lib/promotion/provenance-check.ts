import { z } from 'zod';
import { UsageError } from '../errors/toolkit-error.ts';
import { describeZodIssues } from '../errors/zod-issues.ts';
import { loadTrustedRootFile, publicGoodTrustedRoot } from '../signing/trusted-root.ts';
import type { AttestationSource } from './attestation-source.ts';
import { fileAttestations } from './file-attestations.ts';
import { gitHubAttestations } from './github-attestations.ts';
import { verifyImagesProvenance } from './verify-provenance.ts';

export interface ProvenanceSettings {
  /** CI workflow file whose attestations count (promote.ts --ci-workflow). */
  readonly workflow: string;
  /** `--attestations-dir`: read attestations from files instead of the GitHub API. */
  readonly attestationsDir: string | undefined;
  /** `--trusted-root`: a trusted_root.json instead of Sigstore public good's. */
  readonly trustedRoot: string | undefined;
}

const GITHUB_OIDC_ISSUER = 'https://token.actions.githubusercontent.com';
const envSchema = z.object({
  GITHUB_REPOSITORY: z.string().regex(/^[^/]+\/[^/]+$/, 'expected owner/name'),
  GITHUB_TOKEN: z.string().min(1).optional(),
  GITHUB_API_URL: z.url().optional(),
});

/** The provenance check promote.ts runs before signing a commit channel: this repository (GITHUB_REPOSITORY)'s CI on main. */
export async function provenanceCheck(
  settings: ProvenanceSettings,
  env: NodeJS.ProcessEnv = process.env,
): Promise<(commit: string, images: Readonly<Record<string, string>>) => Promise<void>> {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success)
    throw new UsageError(
      `Cannot verify provenance: set GITHUB_REPOSITORY (this repository)\n${describeZodIssues('environment', {}, parsed.error).join('\n')}`,
    );
  const { GITHUB_REPOSITORY: repository, GITHUB_TOKEN: token, GITHUB_API_URL: apiUrl } = parsed.data;
  let source: AttestationSource;
  if (settings.attestationsDir !== undefined) source = fileAttestations(settings.attestationsDir);
  else if (token !== undefined) source = gitHubAttestations({ repository, token, apiUrl });
  else throw new UsageError('Cannot verify provenance: pass --attestations-dir DIR or set GITHUB_TOKEN');
  const trustedRoot =
    settings.trustedRoot === undefined ? publicGoodTrustedRoot() : await loadTrustedRootFile(settings.trustedRoot);
  const policy = {
    repository,
    workflow: settings.workflow,
    ref: 'refs/heads/main',
    issuer: GITHUB_OIDC_ISSUER,
    trustedRoot,
  };
  return (commit, images) => verifyImagesProvenance(images, commit, source, policy);
}
