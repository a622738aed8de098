/**
 * node-tap builds its test class from the plugins package.json configures (`tap.plugin`); a fresh
 * `npm ci` holds the default set. `npx tap build` takes seconds, so it runs only when the configured
 * set changed or the built class is not the one the last build wrote (a reinstall replaces it).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './selection.ts';

const built = path.join(root, 'node_modules/@tapjs/test/test-built/dist/esm/index.js');
const marker = path.join(root, 'node_modules/.cache/schemaforge/tap-build.json');

function currentKey(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { tap?: { plugin?: string[] } };
  const stat = fs.existsSync(built) ? fs.statSync(built).mtimeMs : 0;
  return JSON.stringify({ plugins: manifest.tap?.plugin ?? [], built: stat });
}

export function ensureTapBuilt(): void {
  const wanted = currentKey();
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === wanted) return;
  execFileSync('npx', ['tap', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  fs.mkdirSync(path.dirname(marker), { recursive: true });
  fs.writeFileSync(marker, currentKey());
}
