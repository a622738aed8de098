/**
 * `npm run generate` refuses an operation under a method the server does not route (HEAD, OPTIONS,
 * TRACE) with one line naming the document, the path and the method (scripts/generate/openapi.ts):
 * the check on an in-memory document, then the command itself on a scratch copy of the project.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { checkServedMethods } from '../../scripts/generate/openapi.ts';
import { SpecError } from '../../scripts/generate/spec-error.ts';
import { documentNames } from '../../generated/openapi/index.ts';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import { scratchProject } from '../helpers/scratch-project.ts';

const run = promisify(execFile);
const SERVED = '(served: get, put, post, delete, patch)';

t.test('the published documents hold served operations only', async (t) => {
  for (const name of documentNames) {
    t.doesNotThrow(() => checkServedMethods(loadOpenApiDocument(name), `openapi/${name}.yaml`), name);
  }
});

t.test('an operation under head, options or trace is one line each', async (t) => {
  const doc = structuredClone(loadOpenApiDocument('rest-v1'));
  const products = doc.paths['/api/v1/products'];
  products.head = { operationId: 'headProducts', responses: { '200': { description: 'ok' } } };
  doc.paths['/api/v1/echo'] = {
    options: { operationId: 'echoOptions', responses: { '204': { description: 'ok' } } },
    trace: { operationId: 'echoTrace', responses: { '200': { description: 'ok' } } },
  };
  let thrown: unknown;
  try {
    checkServedMethods(doc, 'openapi/rest-v1.yaml');
  } catch (error) {
    thrown = error;
  }
  t.ok(thrown instanceof SpecError, 'a SpecError, which `npm run generate` prints without a stack');
  t.equal(
    (thrown as Error | undefined)?.message,
    [
      `openapi/rest-v1.yaml: paths./api/v1/products.head: HEAD operations are not served ${SERVED}; remove it or serve it`,
      `openapi/rest-v1.yaml: paths./api/v1/echo.options: OPTIONS operations are not served ${SERVED}; remove it or serve it`,
      `openapi/rest-v1.yaml: paths./api/v1/echo.trace: TRACE operations are not served ${SERVED}; remove it or serve it`,
    ].join('\n'),
  );
});

t.test('npm run generate fails on a HEAD operation, printing that line only', async (t) => {
  const dir = scratchProject(t, 'served');
  const spec = path.join(dir, 'openapi/ops.yaml');
  const text = fs.readFileSync(spec, 'utf8');
  const head = [
    '  /healthz:',
    '    head:',
    '      operationId: healthzHead',
    '      tags: [ops]',
    '      summary: Liveness probe without a body',
    '      description: 200 while the process is serving requests.',
    '      security: []',
    '      responses:',
    "        '200':",
    '          description: Alive.',
    '    get:',
  ].join('\n');
  if (!text.includes('  /healthz:\n    get:')) throw new Error('openapi/ops.yaml no longer starts /healthz with get');
  fs.writeFileSync(spec, text.replace('  /healthz:\n    get:', head));

  const out = path.join(dir, 'out');
  const failed = await run(process.execPath, ['--import', 'tsx', 'scripts/generate.ts', '--out', out], { cwd: dir }).then(
    () => null,
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  t.ok(failed, 'the command fails');
  t.equal(failed?.code, 1);
  t.equal(failed?.stderr, `openapi/ops.yaml: paths./healthz.head: HEAD operations are not served ${SERVED}; remove it or serve it\n`);
  t.notOk(fs.existsSync(out), 'nothing is written');
});
