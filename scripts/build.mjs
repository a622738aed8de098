/**
 * `npm run build` (and `npm start` before it starts): compiles src/ and generated/ to JavaScript in dist/,
 * one module per source file in the same tree (dist/src/main.js, dist/generated/...), so a module that
 * reads a file relative to itself (src/http/openapi-docs.ts reads ../../generated/openapi/*.json) finds it
 * in dist/ too; the data files are copied beside the compiled modules. esbuild only strips types, it does
 * not check them (`npm run typecheck` does). Plain JavaScript, so that it runs without tsx, which is a
 * devDependency; esbuild is a runtime dependency anyway (the explorer bundles graphql's parser with it).
 */
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'dist');
const SOURCES = ['src', 'generated'];

const started = Date.now();
const files = SOURCES.flatMap((dir) =>
  fs
    .readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name))),
);
const isModule = (file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts');

/** Every import stays an import: relative `.ts` specifiers become `.js`, packages come from node_modules. */
const keepImports = {
  name: 'keep-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      return { path: args.path.replace(/^(\.{1,2}\/.*)\.ts$/, '$1.js'), external: true };
    });
  },
};

// Written beside dist/ and swapped in whole, so a server starting meanwhile never sees half a build.
const staging = `${out}.${process.pid}`;
fs.rmSync(staging, { recursive: true, force: true });
try {
  await build({
    absWorkingDir: root,
    entryPoints: files.filter(isModule),
    outdir: staging,
    outbase: '.',
    bundle: true,
    plugins: [keepImports],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  for (const file of files.filter((f) => !isModule(f) && !f.endsWith('.d.ts'))) {
    fs.mkdirSync(path.dirname(path.join(staging, file)), { recursive: true });
    fs.copyFileSync(path.join(root, file), path.join(staging, file));
  }
  fs.rmSync(out, { recursive: true, force: true });
  fs.renameSync(staging, out);
} catch (error) {
  fs.rmSync(staging, { recursive: true, force: true });
  throw error;
}
console.log(`dist/: ${files.filter(isModule).length} modules compiled in ${Date.now() - started} ms`);
