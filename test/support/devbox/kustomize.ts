// Renders a kustomization with the real `kubectl kustomize` (as Argo CD runs kustomize); fails loudly when kubectl is absent.
import { parseAllDocuments } from 'yaml';
import { exec, execOk } from '../../../scripts/lib/ports/exec.ts';

export interface Rendered {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

export async function kustomize(dir: string): Promise<Rendered[]> {
  const which = await exec('kubectl', ['version', '--client']).catch((error: Error) => ({
    code: -1,
    stderr: error.message,
  }));
  if (which.code !== 0)
    throw new Error(`kubectl is required to render kustomizations and is not usable: ${which.stderr}`);
  const out = await execOk(exec, 'kubectl', ['kustomize', dir]);
  return parseAllDocuments(out.stdout.toString('utf8'))
    .map((doc) => doc.toJS() as Rendered)
    .filter((doc) => doc !== null);
}
