import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { kubeFromFile } from '../../../scripts/lib/ports/kube.ts';
import { KubeError } from '../../../scripts/lib/ports/kube-error.ts';
import { ADMIN_TOKEN, startKubeApiServer } from '../../support/kube-api-server/index.ts';
import type { KubeApiServer } from '../../support/kube-api-server/index.ts';
import { makeTestPki, startTlsFront } from '../../support/kube-api-server/tls-front.ts';
import type { TestPki, TlsFront } from '../../support/kube-api-server/tls-front.ts';
import { thrown } from '../../support/thrown.ts';

let server: KubeApiServer;
let front: TlsFront;
let pki: TestPki;
let dir: string;
let files = 0;

beforeAll(async () => {
  server = await startKubeApiServer();
  dir = mkdtempSync(join(tmpdir(), 'kube-credentials-'));
  mkdirSync(join(dir, 'pki'));
  pki = makeTestPki(join(dir, 'pki'));
  front = await startTlsFront(pki, server.url, { 'system:admin': ADMIN_TOKEN });
}, 30_000);
afterAll(async () => {
  await front.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const b64 = (file: string) => readFileSync(file).toString('base64');

/** A kubeconfig of one cluster, user and context, written under `dir/<folder>/`; returns its path. */
function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>, folder = `k${++files}`): string {
  mkdirSync(join(dir, folder), { recursive: true });
  const path = join(dir, folder, 'config');
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'k3s', cluster }],
      users: [{ name: 'admin', user }],
      contexts: [{ name: 'k3s', context: { cluster: 'k3s', user: 'admin' } }],
      'current-context': 'k3s',
    }),
  );
  return path;
}

describe('kubeFromFile() over HTTPS: the kubeconfig k3s writes, a client certificate the server requires', () => {
  it('reads the CA and the client certificate from *-data fields and checks the server against tls-server-name', async () => {
    const path = kubeconfig(
      { server: front.url, 'certificate-authority-data': b64(pki.caCert), 'tls-server-name': 'kube.test' },
      { 'client-certificate-data': b64(pki.clientCert), 'client-key-data': b64(pki.clientKey) },
    );
    const before = front.clients.length;
    expect(await kubeFromFile(path).whoAmI()).toEqual({
      username: 'system:admin',
      groups: ['system:masters', 'system:authenticated'],
    });
    expect(front.clients.slice(before)).toEqual(['system:admin']);
  });

  it('reads certificate files relative to the kubeconfig folder, wherever the command runs', async () => {
    const path = kubeconfig(
      { server: front.url, 'certificate-authority': '../pki/ca.crt', 'tls-server-name': 'kube.test' },
      { 'client-certificate': '../pki/client.crt', 'client-key': '../pki/client.key' },
    );
    const kube = kubeFromFile(path);
    await kube.create('ConfigMap', 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'over-tls' } });
    expect((await kube.get('ConfigMap', 'default', 'over-tls'))?.metadata.name).toBe('over-tls');
    expect(kube.requestCount()).toBe(2);
  });

  it('with insecure-skip-tls-verify it talks to a server whose CA it lacks; without, the request fails on the certificate', async () => {
    const user = { 'client-certificate-data': b64(pki.clientCert), 'client-key-data': b64(pki.clientKey) };
    const trusting = kubeFromFile(kubeconfig({ server: front.url, 'insecure-skip-tls-verify': true }, user));
    expect((await trusting.whoAmI()).username).toBe('system:admin');
    const careful = kubeFromFile(kubeconfig({ server: front.url, 'tls-server-name': 'kube.test' }, user));
    const error = await careful.whoAmI().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unavailable', message: expect.stringContaining('certificate') });
  });

  it('without the client certificate the server refuses the TLS handshake', async () => {
    const path = kubeconfig(
      { server: front.url, 'certificate-authority-data': b64(pki.caCert), 'tls-server-name': 'kube.test' },
      { token: ADMIN_TOKEN },
    );
    await expect(kubeFromFile(path).whoAmI()).rejects.toMatchObject({ code: 'unavailable' });
  });
});

describe('kubeFromFile(): tokens and plugins', () => {
  it('reads tokenFile relative to the kubeconfig folder', async () => {
    server.addUser('file-token', 'from-file');
    const path = kubeconfig({ server: server.url, 'insecure-skip-tls-verify': true }, { tokenFile: 'token' }, 'tf');
    writeFileSync(join(dir, 'tf', 'token'), 'file-token\n');
    expect((await kubeFromFile(path).whoAmI()).username).toBe('from-file');
  });

  it('runs an exec plugin through client-node, once for several requests', async () => {
    server.addUser('exec-token', 'exec-user');
    const plugin = join(dir, 'plugin.mjs');
    const runs = join(dir, 'plugin-runs');
    writeFileSync(
      plugin,
      `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(runs)}, 'run\\n');\n` +
        `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'exec-token' } }));\n`,
    );
    const path = kubeconfig(
      { server: server.url, 'insecure-skip-tls-verify': true },
      { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [plugin] } },
    );
    const kube = kubeFromFile(path);
    expect((await kube.whoAmI()).username).toBe('exec-user');
    expect((await kube.whoAmI()).username).toBe('exec-user');
    expect(kube.requestCount()).toBe(2);
    expect(readFileSync(runs, 'utf8')).toBe('run\n');
  });

  it('loads @kubernetes/client-node only when a kubeconfig needs it, on its first request', async () => {
    server.addUser('exec-token', 'exec-user');
    const plain = kubeconfig({ server: server.url, 'insecure-skip-tls-verify': true }, { token: ADMIN_TOKEN });
    const exec = kubeconfig(
      { server: server.url, 'insecure-skip-tls-verify': true },
      {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: process.execPath,
          args: [
            '-e',
            `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'exec-token' } }))`,
          ],
        },
      },
    );
    const kubeModule = fileURLToPath(new URL('../../../scripts/lib/ports/kube.ts', import.meta.url));
    const script = `
      import { registerHooks } from 'node:module';
      let loaded = false;
      registerHooks({ resolve(s, c, next) { const r = next(s, c); if (r.url.includes('/node_modules/@kubernetes/client-node/')) loaded = true; return r; } });
      const { kubeFromFile } = await import(${JSON.stringify(kubeModule)});
      const seen = [];
      seen.push((await kubeFromFile(${JSON.stringify(plain)}).whoAmI()).username, loaded);
      const viaPlugin = kubeFromFile(${JSON.stringify(exec)});
      seen.push(loaded, (await viaPlugin.whoAmI()).username, loaded);
      process.stdout.write(JSON.stringify(seen));`;
    // Asynchronously: the test API server answering it runs in this process.
    const { stdout: out } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
    expect(JSON.parse(out)).toEqual(['system:admin', false, false, 'exec-user', true]);
  });
});

describe('kubeFromFile(): a kubeconfig it cannot use names the file, the field and the value (exit 2)', () => {
  it('a field of the wrong type, the token itself never shown', () => {
    const path = kubeconfig({ server: server.url, 'insecure-skip-tls-verify': 'yes' }, { token: 12345 });
    const error = thrown(KubeError, () => kubeFromFile(path));
    expect(error).toMatchObject({ code: 'config', exitCode: 2 });
    expect(error.message).toContain(`${path}: clusters[0].cluster.insecure-skip-tls-verify:`);
    expect(error.message).toContain('(value "yes")');
    expect(error.message).toContain(`${path}: users[0].user.token:`);
    expect(error.message).not.toContain('12345');
  });

  it('a certificate file that is not there, with the path it was looked for at', () => {
    const path = kubeconfig(
      { server: front.url, 'certificate-authority': 'missing-ca.crt' },
      { token: ADMIN_TOKEN },
      'nocert',
    );
    const error = thrown(KubeError, () => kubeFromFile(path));
    expect(error.code).toBe('config');
    expect(error.message).toBe(
      `Cannot load kubeconfig "${path}": clusters[0].cluster.certificate-authority: cannot read "${join(dir, 'nocert', 'missing-ca.crt')}" (ENOENT)`,
    );
  });

  it('a certificate that is not PEM, a file beside its -data twin, plain HTTP that was not asked for', () => {
    const garbage = kubeconfig(
      { server: front.url, 'certificate-authority-data': Buffer.from('not a certificate').toString('base64') },
      { token: ADMIN_TOKEN },
    );
    expect(thrown(KubeError, () => kubeFromFile(garbage)).message).toContain(
      'cluster "k3s": certificate-authority is not a usable PEM certificate',
    );
    const both = kubeconfig(
      { server: front.url },
      { 'client-certificate': '../pki/client.crt', 'client-certificate-data': b64(pki.clientCert), token: 'x' },
    );
    expect(thrown(KubeError, () => kubeFromFile(both)).message).toContain(
      'users[0].user.client-certificate: set together with client-certificate-data',
    );
    const http = kubeconfig({ server: server.url }, { token: ADMIN_TOKEN });
    expect(thrown(KubeError, () => kubeFromFile(http))).toMatchObject({
      code: 'config',
      message: expect.stringContaining('is plain HTTP; set insecure-skip-tls-verify: true'),
    });
  });
});
