// test-suite: once (the server refuses to start before it serves anything; the compiler reads no database).
/**
 * Start-up failures point at the file to edit: on a scratch copy of the project, an operation added to
 * an OpenAPI document without a handler stops the server (`npm run dev` runs it through tsx, which
 * checks no types) with one line per operation naming the file to write it in, and a field added to
 * schema/posts.graphql without a resolver is a compile error in src/content/posts.resolvers.ts, not in
 * the file that merges the areas (src/content/content.graph.ts).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { scratchProject } from '../helpers/scratch-project.ts';

const run = promisify(execFile);

/** `text` with `anchor` preceded by `added`; fails when the spec no longer holds `anchor`. */
function insertBefore(file: string, anchor: string, added: string): void {
  const text = fs.readFileSync(file, 'utf8');
  if (!text.includes(anchor)) throw new Error(`${file} no longer holds ${JSON.stringify(anchor)}`);
  fs.writeFileSync(file, text.replace(anchor, `${added}${anchor}`));
}

async function generate(dir: string): Promise<void> {
  await run(process.execPath, ['--import', 'tsx', 'scripts/generate.ts'], { cwd: dir });
}

/** An operation of rest-v1 without a body, answering 204, for the edit below. */
function operation(operationId: string, tag: string, parameter: string): string {
  return [
    '    parameters:',
    `      - $ref: '#/components/parameters/${parameter}'`,
    '    post:',
    `      operationId: ${operationId}`,
    `      tags: [${tag}]`,
    `      summary: ${operationId}`,
    '      description: Added by the test.',
    '      security:',
    '        - bearerAuth: []',
    '      responses:',
    "        '204':",
    '          description: Done.',
    "        '401':",
    "          $ref: './components/problem.yaml#/components/responses/Unauthorized'",
    '',
  ].join('\n');
}

t.test('an operation without a handler stops the server with one line naming the file to write it in', { timeout: 120_000 }, async (t) => {
  const dir = scratchProject(t, 'startup-errors');
  const spec = path.join(dir, 'openapi/rest-v1.yaml');
  insertBefore(
    spec,
    '  /api/v1/products/{id}:\n',
    `  /api/v1/products/{id}/archive:\n${operation('archiveProduct', 'products', 'productId')}`,
  );
  insertBefore(spec, '  /api/v1/orders/{id}/cancel:\n', `  /api/v1/orders/{id}/hold:\n${operation('holdOrder', 'orders', 'orderId')}`);
  await generate(dir);

  // As `npm run dev` starts it: the sources through tsx, no typecheck.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    DATABASE_URL: 'memory:',
    DATA_DIR: path.join(dir, '.data'),
    PORT: '0',
    HOST: '127.0.0.1',
  };
  const started = await run(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: dir, env, timeout: 90_000 }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => error,
  );
  t.equal(started.code, 1, 'the server exits 1');
  t.equal(
    started.stderr,
    [
      'error: openapi/rest-v1.yaml: operation archiveProduct (POST /api/v1/products/{id}/archive) has no handler; write it in src/catalog/products.v1.handlers.ts',
      'error: openapi/rest-v1.yaml: operation holdOrder (POST /api/v1/orders/{id}/hold) has no handler; write it in src/orders/orders.handlers.ts',
      '',
    ].join('\n'),
    'one line per missing handler, each naming the file where the operations of its tag are written',
  );
});

t.test('a field without a resolver is a compile error in its area resolvers file', { timeout: 180_000 }, async (t) => {
  const dir = scratchProject(t, 'startup-errors');
  // The application (src/ and the generated files it imports) only: scripts/ and the benchmarks
  // import test helpers this copy has not got, and the error is about src/.
  const tsconfigPath = path.join(dir, 'tsconfig.json');
  const tsconfig = JSON.parse(fs.readFileSync(tsconfigPath, 'utf8')) as { include: string[] };
  fs.writeFileSync(tsconfigPath, JSON.stringify({ ...tsconfig, include: ['src'] }, null, 2));
  fs.appendFileSync(path.join(dir, 'schema/posts.graphql'), '\nextend type Query {\n  "Most liked posts."\n  trendingPosts: [Post!]!\n}\n');
  await generate(dir);

  const checked = await run(path.join(dir, 'node_modules/.bin/tsc'), ['-p', '.', '--noEmit'], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    ({ stdout }) => ({ ok: true, output: stdout }),
    (error: { stdout: string }) => ({ ok: false, output: error.stdout }),
  );
  t.notOk(checked.ok, 'typecheck fails');
  const errors = checked.output.split('\n').filter((line) => /error TS\d+/.test(line));
  t.equal(errors.length, 1, `one error:\n${checked.output}`);
  t.match(
    errors[0],
    /^src\/content\/posts\.resolvers\.ts\(\d+,\d+\): error TS\d+: .*'trendingPosts'/,
    'at the export of posts.resolvers.ts',
  );
  t.notMatch(checked.output, /content\.graph\.ts/, 'not in the file that merges the areas');
});
