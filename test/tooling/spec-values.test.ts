/**
 * The values the server reads from the OpenAPI documents instead of repeating them
 * (scripts/generate/xml-names.ts, problem-types.ts): the XML names of the representations and the
 * problem types with their status and title. The committed modules say what the published documents
 * say; a scratch copy of openapi/ with a renamed XML item, a new problem type and a changed title
 * generates those values, bundled as `npm run generate` bundles it (the rest of generate is not run:
 * these generators read the bundled document only); and a list the XML writer cannot write as
 * declared, or a problem type without its status, is refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { bundleDocument } from '../../scripts/generate/openapi.ts';
import { problemTypes as declaredProblemTypes, problemTypesModule } from '../../scripts/generate/problem-types.ts';
import { SpecError } from '../../scripts/generate/spec-error.ts';
import { xmlNames as declaredXmlNames, xmlNamesModule } from '../../scripts/generate/xml-names.ts';
import { problemTypes } from '../../generated/openapi/problem-types.ts';
import { xmlNames } from '../../generated/openapi/rest-v1.xml.ts';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** Replaces `anchor` in `file` by `replacement`; fails when the file no longer holds it once. */
function replaceOnce(file: string, anchor: string, replacement: string): void {
  const text = fs.readFileSync(file, 'utf8');
  if (text.split(anchor).length !== 2) throw new Error(`${file} no longer holds ${JSON.stringify(anchor)} once`);
  fs.writeFileSync(file, text.replace(anchor, replacement));
}

function refusal(check: () => unknown): string {
  try {
    check();
  } catch (error) {
    if (error instanceof SpecError) return error.message;
    throw error;
  }
  return '(not refused)';
}

t.test('the committed modules hold what the published documents declare', async (t) => {
  const doc = loadOpenApiDocument('rest-v1');
  t.same(xmlNames, declaredXmlNames(doc, 'openapi/rest-v1.yaml'));
  t.same(xmlNames.ProductResponse, { root: 'product', items: { attributes: 'attribute', images: 'image' } });
  t.same(xmlNames.PagedProductResponse.items, { attributes: 'attribute', content: 'product', images: 'image' });
  const types = declaredProblemTypes(doc, 'openapi/rest-v1.yaml')!;
  t.same(problemTypes, Object.fromEntries(types.map((p) => [p.type.slice('/problems/'.length), { status: p.status, title: p.title }])));
  // The published description lists them as a table, as it did when the table was written by hand.
  for (const p of types) t.match(doc.components.schemas.Problem.description, `| \`${p.type}\` | ${p.status} | ${p.title} |`, p.type);
});

t.test('edited documents generate the edited names, kinds and titles', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-spec-values-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.cpSync(path.join(root, 'openapi'), path.join(dir, 'openapi'), { recursive: true });
  replaceOnce(path.join(dir, 'openapi/rest-v1.yaml'), '      xml:\n        name: image\n', '      xml:\n        name: picture\n');
  const problemFile = path.join(dir, 'openapi/components/problem.yaml');
  replaceOnce(problemFile, '          status: 404\n          title: Not found\n', '          status: 404\n          title: Nothing here\n');
  replaceOnce(
    problemFile,
    '      x-problem-types:\n',
    '      x-problem-types:\n        - type: /problems/teapot\n          status: 418\n          title: I am a teapot\n          when: it is asked to brew coffee\n',
  );
  const doc = await bundleDocument(path.join(dir, 'openapi/rest-v1.yaml'), dir);

  const xml = xmlNamesModule(declaredXmlNames(doc, 'openapi/rest-v1.yaml'), 'openapi/rest-v1.yaml') ?? '';
  t.match(xml, 'ProductResponse: { root: "product", items: {"attributes":"attribute","images":"picture"} }');
  t.match(xml, '"content":"product","images":"picture"');

  const kinds = problemTypesModule(declaredProblemTypes(doc, 'openapi/rest-v1.yaml')!);
  t.match(kinds, '  "teapot": { status: 418, title: "I am a teapot" },');
  t.match(kinds, '  "not-found": { status: 404, title: "Nothing here" },');
  t.match(doc.components.schemas.Problem.description, '| `/problems/teapot` | 418 | I am a teapot | it is asked to brew coffee |');
});

t.test('what the server cannot serve as declared is refused, one line each', async (t) => {
  const doc = structuredClone(loadOpenApiDocument('rest-v1'));
  const product = doc.components.schemas.ProductResponse;
  delete product.properties.images.xml;
  product.properties.attributes.items = { type: 'string' };
  t.equal(
    refusal(() => declaredXmlNames(doc, 'openapi/rest-v1.yaml')),
    [
      'openapi/rest-v1.yaml: components.schemas.PagedProductResponse: list "attributes" names no item element (`xml.name` of its items)',
      'openapi/rest-v1.yaml: components.schemas.PagedProductResponse: list "images" is not `xml.wrapped: true`; the XML writer wraps every list',
      'openapi/rest-v1.yaml: components.schemas.ProductResponse: list "attributes" names no item element (`xml.name` of its items)',
      'openapi/rest-v1.yaml: components.schemas.ProductResponse: list "images" is not `xml.wrapped: true`; the XML writer wraps every list',
    ].join('\n'),
  );

  const list = doc.components.schemas.Problem['x-problem-types'];
  list.push({ type: '/problems/teapot', title: 'I am a teapot', when: 'coffee' }, { ...list[0] });
  t.equal(
    refusal(() => declaredProblemTypes(doc, 'openapi/rest-v1.yaml')),
    [
      `openapi/rest-v1.yaml: components.schemas.Problem.x-problem-types[${list.length - 2}]: status is not an error status (400-599)`,
      `openapi/rest-v1.yaml: components.schemas.Problem.x-problem-types[${list.length - 1}]: /problems/validation-error is listed twice`,
    ].join('\n'),
  );
});
