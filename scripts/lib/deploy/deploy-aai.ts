import type { Kube } from '../ports/kube.ts';
import { DeployError } from './deploy-error.ts';
import type { DeployProfile } from '../target/deploy-profile.ts';
import { readSecretData, writeSecretKeys } from './deploy-secret.ts';

export interface AaiClientRequest {
  readonly name: string;
  readonly redirectUris: readonly string[];
}

/** The AAI (the platform's OIDC identity provider): makes sure a confidential client exists, returns its credentials. */
export interface Aai {
  readonly issuer: string;
  ensureClient(client: AaiClientRequest): Promise<{ readonly clientId: string; readonly clientSecret: string }>;
}

export interface AaiOutcome {
  readonly client: string;
  readonly secret: string;
  readonly action: 'created' | 'updated' | 'unchanged';
}

/**
 * Each client's credentials in its Secret (keys issuer, clientID, clientSecret). A Secret that already names this
 * issuer and client is kept as it is: a deploy never rotates a secret the dev box's services already use.
 */
export async function applyAaiClients(
  kube: Kube,
  aai: Aai,
  settings: NonNullable<DeployProfile['aai']>,
): Promise<AaiOutcome[]> {
  const out: AaiOutcome[] = [];
  for (const client of settings.clients) {
    const where = `${client.namespace}/${client.secret}`;
    const current = await readSecretData(kube, client.namespace, client.secret);
    if (
      current?.data['issuer'] === settings.issuer &&
      current.data['clientID'] === client.name &&
      (current.data['clientSecret'] ?? '') !== ''
    ) {
      out.push({ client: client.name, secret: where, action: 'unchanged' });
      continue;
    }
    let credentials: { clientId: string; clientSecret: string };
    try {
      credentials = await aai.ensureClient({ name: client.name, redirectUris: client.redirectUris });
    } catch (cause) {
      throw new DeployError(
        'aai-failed',
        `Cannot register AAI client "${client.name}" at "${settings.issuer}": ${(cause as Error).message}`,
        { cause, details: { client: client.name } },
      );
    }
    if (credentials.clientId !== client.name || credentials.clientSecret === '') {
      throw new DeployError(
        'aai-failed',
        `Cannot use AAI client "${client.name}": the AAI answered client "${credentials.clientId}"${credentials.clientSecret === '' ? ' with no secret' : ''}`,
      );
    }
    const action = await writeSecretKeys(
      kube,
      client.namespace,
      client.secret,
      { issuer: settings.issuer, clientID: credentials.clientId, clientSecret: credentials.clientSecret },
      { 'pharos.dev/aai-client': client.name },
    );
    out.push({ client: client.name, secret: where, action });
  }
  return out;
}
