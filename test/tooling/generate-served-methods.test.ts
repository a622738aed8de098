/**
 * `npm run generate` refuses an operation under a method the server does not route (HEAD, OPTIONS,
 * TRACE) with one line naming the document, the path and the method (scripts/generate/openapi.ts):
 * the check on an in-memory document, then the whole of generate on a scratch copy of the project, in
 * this process: how the command prints a refusal (stderr, exit status 1, no stack) is
 * spec-errors.test.ts's, which runs it (a process of its own would load generate's modules again).
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { generate } from '../../scripts/generate.ts';
import { checkServedMethods } from '../../scripts/generate/openapi.ts';
import { SpecError } from '../../scripts/generate/spec-error.ts';
import { documentNames } from '../../generated/openapi/index.ts';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import { scratchProject } from '../helpers/scratch-project.ts';

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

t.test('npm run generate refuses a HEAD operation with that line only', async (t) => {
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

  // As `npm run generate -- --out out` runs it; what it would print besides the refusal goes to `warned`.
  const out = path.join(dir, 'out');
  const warned: string[] = [];
  const failed = await generate(dir, out, { warn: (line) => warned.push(line) }).then(
    () => null,
    (error: unknown) => error,
  );
  t.ok(failed instanceof SpecError, 'generate refuses the specs (the command prints a SpecError alone and exits 1)');
  t.equal(
    (failed as Error | null)?.message,
    `openapi/ops.yaml: paths./healthz.head: HEAD operations are not served ${SERVED}; remove it or serve it`,
  );
  t.same(warned, [], 'no other line');
  t.notOk(fs.existsSync(out), 'nothing is written');
});
