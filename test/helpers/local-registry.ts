/**
 * An npm registry on loopback that serves the packages installed in the project's node_modules, so
 * a test can `npm install` a packed tarball into a scratch project exactly as a consumer would,
 * without reaching any address but 127.0.0.1. Each package is offered at the one version installed
 * here (its package.json as the version's manifest, its folder packed by `npm pack` on first
 * request); a name not installed here is a 404, so a dependency the SDK forgot to pin, or one it
 * should not have, fails the install loudly.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Test } from 'tap';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

/** The manifest fields npm reads to resolve and place a version. */
const MANIFEST_FIELDS = [
  'name',
  'version',
  'dependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'optionalDependencies',
  'engines',
  'bin',
  'os',
  'cpu',
];

/** The environment of an npm child process: this process's own, without the `npm_*` settings of the `npm test` running us. */
export function npmEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  return { ...env, ...extra };
}

interface Packed {
  file: string;
  integrity: string;
}

export async function localRegistry(t: Test): Promise<{ url: string }> {
  const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-registry-'));
  const packed = new Map<string, Promise<Packed>>();
  let url = '';

  const pack = (name: string, dir: string): Promise<Packed> => {
    let entry = packed.get(name);
    if (!entry) {
      entry = run('npm', ['pack', dir, '--pack-destination', packDir, '--ignore-scripts', '--json'], { env: npmEnvironment() }).then(
        ({ stdout }) => {
          const [result] = JSON.parse(stdout) as { filename: string; integrity: string }[];
          return { file: path.join(packDir, result!.filename), integrity: result!.integrity };
        },
      );
      packed.set(name, entry);
    }
    return entry;
  };

  const server = http.createServer((request, response) => {
    void (async () => {
      const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://registry').pathname).slice(1);
      const tarball = /^(.+)\/-\/[^/]+\.tgz$/.exec(pathname);
      const name = tarball ? tarball[1]! : pathname;
      const dir = path.join(root, 'node_modules', name);
      const manifestFile = path.join(dir, 'package.json');
      if (!/^(@[\w.-]+\/)?[\w.-]+$/.test(name) || !fs.existsSync(manifestFile)) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      const { file, integrity } = await pack(name, dir);
      if (tarball) {
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        fs.createReadStream(file).pipe(response);
        return;
      }
      const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
      const version = String(manifest.version);
      const shasum = crypto.createHash('sha1').update(fs.readFileSync(file)).digest('hex');
      const published = Object.fromEntries(MANIFEST_FIELDS.filter((k) => manifest[k] !== undefined).map((k) => [k, manifest[k]]));
      const tarballUrl = `${url}/${name}/-/${name.split('/').pop()}-${version}.tgz`;
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          name,
          'dist-tags': { latest: version },
          versions: { [version]: { ...published, dist: { tarball: tarballUrl, integrity, shasum } } },
        }),
      );
    })().catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.teardown(async () => {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(packDir, { recursive: true, force: true });
  });
  return { url };
}
