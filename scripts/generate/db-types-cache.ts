/**
 * The row types of generated/db/types.ts, cached by the content of the migrations and of the
 * generator: opening the migrated PGlite (made from the migrations once, then loaded from its dump:
 * scripts/lib/pglite-snapshot.ts) is the largest part of `npm run generate`, and its result changes
 * only when a migration does. A miss runs the generator in a worker thread, so
 * it overlaps the OpenAPI and GraphQL steps on the second core (a child process: a worker thread
 * does not get tsx's loader on Node 20).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';

function inputsHash(root: string): string {
  const hash = createHash('sha256');
  const dir = path.join(root, 'src/db/migrations');
  const inputs = [
    ...fs
      .readdirSync(dir)
      .sort()
      .map((f) => path.join(dir, f)),
    path.join(root, 'src/db/migrate.ts'),
    path.join(root, 'scripts/generate/db-types.ts'),
  ];
  // Paths relative to the project, so a copy of the project (the schema-first test's) shares the cache.
  for (const file of inputs) hash.update(path.relative(root, file)).update(fs.readFileSync(file));
  return hash.digest('hex').slice(0, 32);
}

export async function dbTypes(root: string): Promise<string> {
  const cacheFile = path.join(root, 'node_modules/.cache/schemaforge', `db-types-${inputsHash(root)}.ts`);
  if (fs.existsSync(cacheFile)) return fs.readFileSync(cacheFile, 'utf8');
  const text = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      // The worker of the project being generated, not of this module's copy: it migrates that
      // project's migrations (a scratch copy of the project imports this module from the original).
      // WebAssembly at V8's baseline tier only: PGlite runs for a second or two here, too short for
      // the optimizing tier to pay for compiling its module (decision 108).
      ['--liftoff-only', '--import', 'tsx', path.join(root, 'scripts/generate/db-types-worker.ts')],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`row types: ${stderr || error.message}`)) : resolve(stdout)),
    );
  });
  fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
  fs.writeFileSync(cacheFile, text);
  return text;
}
