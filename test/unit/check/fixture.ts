import { parseCatalogue } from '../../../scripts/lib/catalogue/index.ts';
import { checkPlatform } from '../../../scripts/lib/check/index.ts';
import type { Finding } from '../../../scripts/lib/check/index.ts';
import { memorySource } from './memory-source.ts';

export const CATALOGUE = `platform: linux/amd64
owned: [acme/]
images:
  api:
    image: acme/api
    application: shop
    context: .
    dockerfile: api/Dockerfile
    inputs: [api, lib]
  web:
    image: acme/web
    application: shop
    context: web
    dockerfile: web/Dockerfile
    args: {APP: store}
    inputs: [web]
`;

/** A small clean platform: every rule passes until a test edits one file. */
export function cleanPlatform(): Record<string, string> {
  return {
    'gitops/manifests/images.yaml': CATALOGUE,
    'api/Dockerfile': 'FROM base\nCOPY lib/ /lib/\nCOPY api/src/ /app/\n',
    'api/src/main.sh': 'echo api\n',
    'api/README.md': '# api\n',
    'lib/util.sh': 'echo util\n',
    'web/Dockerfile': 'FROM base\nARG APP\nCOPY ${APP}/ /srv/\n',
    'web/store/index.html': '<p>store</p>\n',
    'web/store/tests/x.test.js': 'test\n',
    'docs/guide.md': '# guide\n',
    'gitops/apps/shop.yaml':
      'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\nspec:\n  source: {path: gitops/manifests/shop}\n',
    'gitops/manifests/shop/deploy.yaml': [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: api}',
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
      '        - name: api',
      '          image: acme/api:1.0',
      '        - name: web',
      '          image: docker.io/acme/web@sha256:0000000000000000000000000000000000000000000000000000000000000000',
      '        - name: proxy',
      '          image: nginx:1.27',
      '',
    ].join('\n'),
  };
}

export async function check(files: Record<string, string>): Promise<Finding[]> {
  const catalogue = parseCatalogue(files['gitops/manifests/images.yaml'] ?? '', 'gitops/manifests/images.yaml');
  return checkPlatform(memorySource(files), catalogue);
}

/** The findings as `rule image file:line`, the shape tests compare. */
export function brief(findings: readonly Finding[]): string[] {
  return findings.map((f) => `${f.rule} ${f.image} ${f.file}:${f.line}`);
}
