/**
 * `npm run build` (and `npm start` before it starts): compiles src/ and generated/ to JavaScript in dist/,
 * one module per source file in the same tree (dist/src/main.js, dist/generated/...), so a module that
 * reads a file relative to itself (src/http/openapi-docs.ts reads ../../generated/openapi/*.json) finds it
 * in dist/ too; the data files are copied beside the compiled modules. esbuild only strips types, it does
 * not check them (`npm run typecheck` does). Plain JavaScript, so that it runs without tsx, which is a
 * devDependency; esbuild is a runtime dependency anyway (the explorer bundles graphql's parser with it).
 *
 * The test suite bundles its files with `bundleTests` below: there each module keeps reading files
 * where its source lies, so tests and scripts that find the repository from `import.meta.dirname`
 * need no copy of it.
 */
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');

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

/** `import.meta.dirname`, `filename` and `url` name the source file, not the compiled one. */
const pinnedSourcePaths = {
  name: 'pinned-source-paths',
  setup(b) {
    b.onLoad({ filter: /\.(ts|js)$/ }, async (args) => {
      const source = await fs.promises.readFile(args.path, 'utf8');
      const values = {
        dirname: path.dirname(args.path),
        filename: args.path,
        url: pathToFileURL(args.path).href,
      };
      const contents = source.replace(/\bimport\.meta\.(dirname|filename|url)\b/g, (_, key) => JSON.stringify(values[key]));
      return { contents, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
    });
  },
};

const isModule = (file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts');

/**
 * Compiles the modules under `sources` (folders or files, relative to the repository) into `out`, swapped in
 * whole: written beside it and renamed, so a process starting meanwhile never sees half a build.
 * The data files are copied beside the compiled modules.
 * Returns the number of modules compiled.
 *
 * With `stamp`, the staged tree records it (see digestOf) before it is swapped in.
 *
 * @param {{ sources: string[], out: string, stamp?: string }} options
 * @returns {Promise<number>}
 */
export async function compileTree({ sources, out, stamp }) {
  const files = filesOf(sources);
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
    if (stamp) fs.writeFileSync(path.join(staging, stampFile), stamp);
    fs.rmSync(out, { recursive: true, force: true });
    fs.renameSync(staging, out);
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  return files.filter(isModule).length;
}

/**
 * Packages the test bundles import at run time instead of carrying: every devDependency but tap
 * (test peers and tools, which the tests use as their authors ship them; tap is in every test
 * process, and its plugins are built into its own files, which bundle whole), and the runtime
 * packages that read files beside themselves (PGlite's WebAssembly, Swagger UI's and GraphiQL's
 * assets, pino's worker, esbuild's binary). graphql too: one copy must serve our schema and every
 * peer that builds on it (its classes are checked with instanceof across packages).
 */
function externalPackages() {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  return new Set([
    ...Object.keys(manifest.devDependencies ?? {}).filter((name) => name !== 'tap'),
    ...['@electric-sql/pglite', 'swagger-ui-dist', 'graphiql', 'esbuild', 'pino', 'pino-pretty', 'thread-stream', 'graphql'],
  ]);
}

/**
 * Bare imports of `external` packages stay imports; so does every package the code imports on demand
 * (`import()`: passport-saml, the OpenTelemetry SDK), which Node then loads when it is used, as in
 * production, with a CommonJS package's exports by name (in a split bundle they would sit under
 * `default` alone); everything else is bundled.
 */
function keepPackages(external) {
  return {
    name: 'keep-packages',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.kind === 'entry-point' || args.path.startsWith('node:')) return undefined;
        const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
        return args.kind === 'dynamic-import' || external.has(name) ? { path: args.path, external: true } : undefined;
      });
    },
  };
}

/**
 * The test files as the suite runs them: one bundle per file, their shared modules (ours and the
 * bundled packages) in common chunks, so that a test process loads a few large files instead of
 * the two thousand modules the application and its packages are made of (two of the three CPU
 * seconds a test process spent starting went to Node's module loader: docs/decisions.md). Every
 * module keeps `import.meta.dirname` and friends of its source file.
 *
 * @param {{ entries: string[], out: string }} options  entries relative to the repository
 */
export async function bundleTests({ entries, out }) {
  const staging = `${out}.${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  try {
    await build({
      absWorkingDir: root,
      entryPoints: entries,
      outdir: staging,
      outbase: '.',
      bundle: true,
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      plugins: [keepPackages(externalPackages()), pinnedSourcePaths],
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // Bundled CommonJS packages require Node's own modules: an ES module has no `require` of its own.
      banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
      sourcemap: 'linked',
      sourcesContent: false,
      logLevel: 'error',
    });
    for (const map of fs.readdirSync(staging, { recursive: true }).filter((f) => String(f).endsWith('.js.map'))) {
      ownMappingsOnly(path.join(staging, String(map)));
    }
    fs.rmSync(out, { recursive: true, force: true });
    fs.renameSync(staging, out);
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

const VLQ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** @param {string} segment  @returns {number[]} */
function decodeVlq(segment) {
  const values = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = VLQ.indexOf(char);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

/** @param {number[]} values */
function encodeVlq(values) {
  let out = '';
  for (const v of values) {
    let value = v < 0 ? (-v << 1) | 1 : v << 1;
    do {
      let digit = value & 31;
      value >>>= 5;
      if (value) digit |= 32;
      out += VLQ[digit];
    } while (value);
  }
  return out;
}

/**
 * Keeps a source map's mappings into our own files only. Node reads and parses a test process's
 * maps whole (tap reads a stack at every test), and four fifths of a bundle is packages whose
 * locations no failure report needs; their lines are left unmapped.
 *
 * @param {string} file
 */
function ownMappingsOnly(file) {
  const map = JSON.parse(fs.readFileSync(file, 'utf8'));
  const own = map.sources.map((/** @type {string} */ source) => !/(^|\/)(node_modules|generated)\//.test(source));
  // Every field but the generated column is relative to the previous segment of the whole file.
  const read = [0, 0, 0, 0];
  const written = [0, 0, 0, 0];
  const lines = map.mappings.split(';').map((/** @type {string} */ line) => {
    let column = 0;
    let writtenColumn = 0;
    const kept = [];
    for (const segment of line ? line.split(',') : []) {
      const [dc, ...rest] = decodeVlq(segment);
      column += dc ?? 0;
      if (!rest.length) continue;
      for (let i = 0; i < rest.length; i++) read[i] += rest[i] ?? 0;
      if (!own[read[0]]) continue;
      const absolute = [read[0], read[1], read[2], ...(rest.length > 3 ? [read[3]] : [])];
      kept.push(encodeVlq([column - writtenColumn, ...absolute.map((v, i) => v - (written[i] ?? 0))]));
      writtenColumn = column;
      absolute.forEach((v, i) => (written[i] = v));
    }
    return kept.join(',');
  });
  map.mappings = lines.join(';');
  fs.writeFileSync(file, JSON.stringify(map));
}

/** @param {string[]} sources */
function filesOf(sources) {
  return sources
    .flatMap((source) =>
      fs.statSync(path.join(root, source)).isFile()
        ? [source]
        : fs
            .readdirSync(path.join(root, source), { recursive: true, withFileTypes: true })
            .filter((entry) => entry.isFile())
            .map((entry) => path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name))),
    )
    .sort();
}

const stampFile = '.build-digest';

/**
 * What dist/ was built from: every input file's name and bytes, and this script. A build whose inputs
 * are unchanged is skipped, which is what makes a running `npm start` safe from a second one: replacing
 * dist/ under a process that is still loading its modules fails that process with ERR_MODULE_NOT_FOUND
 * (the suite starts `npm start` and `npm run worker` side by side, and it builds dist/ once before them).
 *
 * @param {string[]} sources
 */
function digestOf(sources) {
  const hash = createHash('sha256').update(fs.readFileSync(import.meta.filename));
  for (const file of filesOf(sources)) hash.update(`\0${file}\0`).update(fs.readFileSync(path.join(root, file)));
  return hash.digest('hex');
}

/** Builds dist/ unless it already holds a build of exactly these sources; returns what it did. */
export async function buildDist() {
  const started = Date.now();
  const sources = ['src', 'generated'];
  const out = path.join(root, 'dist');
  const stamp = digestOf(sources);
  let built;
  try {
    built = fs.readFileSync(path.join(out, stampFile), 'utf8');
  } catch {
    built = undefined;
  }
  if (built === stamp) return `dist/ is up to date (checked in ${Date.now() - started} ms)`;
  const modules = await compileTree({ sources, out, stamp });
  return `dist/: ${modules} modules compiled in ${Date.now() - started} ms`;
}

if (import.meta.filename === process.argv[1]) console.log(await buildDist());
