/**
 * The schema-first contract: adding a field to the SDL and regenerating breaks the
 * typecheck, naming the field, until a resolver exists. Runs on a scratch copy of the project so
 * the working tree is never touched.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { scratchProject } from '../helpers/scratch-project.ts';

const run = promisify(execFile);

/** Incremental: the second check re-reads only what the resolver's file touches. */
async function tsc(dir: string): Promise<{ ok: boolean; output: string }> {
  try {
    const args = ['-p', '.', '--incremental', '--tsBuildInfoFile', path.join(dir, '.tsbuildinfo')];
    const { stdout } = await run(path.join(dir, 'node_modules/.bin/tsc'), args, { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    return { ok: true, output: stdout };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

t.test('a new SDL field fails typecheck until it has a resolver', { timeout: 180_000 }, async (t) => {
  const dir = scratchProject(t, 'schema-first', ['generated']);
  // Typecheck the application (src/ and the generated files it imports) only: the contract is about
  // resolvers, and scripts/ or benchmarks being edited elsewhere must not decide this test.
  const tsconfigPath = path.join(dir, 'tsconfig.json');
  const tsconfig = JSON.parse(fs.readFileSync(tsconfigPath, 'utf8')) as { include: string[] };
  fs.writeFileSync(tsconfigPath, JSON.stringify({ ...tsconfig, include: ['src'] }, null, 2));

  const sdl = path.join(dir, 'schema/users.graphql');
  const before = fs.readFileSync(sdl, 'utf8');
  const withField = before.replace(
    '  "When the account was created."\n  createdAt: DateTime!',
    '  "When the account was created."\n  createdAt: DateTime!\n  "How often the user was pinged."\n  pingCount: Int!',
  );
  t.not(withField, before, 'the field was added to the SDL copy');
  fs.writeFileSync(sdl, withField);

  const generated = await run(process.execPath, ['--import', 'tsx', 'scripts/generate.ts'], { cwd: dir });
  t.match(
    generated.stdout,
    // No users.ping_count column either: generate offers both ways, a column or a resolver.
    'missing column: User.pingCount (schema/users.graphql): add users.ping_count in a new migration in src/db/migrations/, or write a resolver in src/content/users.resolvers.ts',
    'generate names the column or the resolver to write, and their places',
  );
  t.match(fs.readFileSync(path.join(dir, 'generated/graphql/resolvers.ts'), 'utf8'), /'pingCount'/, 'StrictResolvers requires it');
  const broken = await tsc(dir);
  t.notOk(broken.ok, 'typecheck fails');
  t.match(broken.output, /src\/content\/users\.resolvers\.ts.*pingCount/, 'in the area file of schema/users.graphql, naming the field');
  t.notMatch(broken.output, /content\.graph\.ts/, 'not in the file that merges the areas');

  const resolvers = path.join(dir, 'src/content/users.resolvers.ts');
  const source = fs.readFileSync(resolvers, 'utf8');
  const implemented = source.replace('  User: {\n', '  User: {\n    pingCount: () => 0,\n');
  t.not(implemented, source, 'a resolver was added to the copy');
  fs.writeFileSync(resolvers, implemented);
  const fixed = await tsc(dir);
  t.ok(fixed.ok, `typecheck passes with the resolver${fixed.ok ? '' : `:\n${fixed.output}`}`);
});
