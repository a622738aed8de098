// test-suite: once (the published documents)
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import YAML from 'yaml';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import { sharedServer } from '../helpers/server.ts';

const OPENAPI = path.resolve(import.meta.dirname, '../../openapi');

/** Every description and summary in a document, with where it is. */
function prose(node: unknown, at = '#', out: [string, string][] = []): [string, string][] {
  if (Array.isArray(node)) node.forEach((item, i) => prose(item, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'description' || key === 'summary') && typeof value === 'string') out.push([`${at}/${key}`, value]);
      else prose(value, `${at}/${key}`, out);
    }
  }
  return out;
}

/** Working notes about how the documents were written, which readers of the API have no use for. */
const WORKING_NOTE = /not shown|interface document|decided/i;

function sourceDocuments(): [string, unknown][] {
  const files = [
    ...fs.readdirSync(OPENAPI).filter((f) => f.endsWith('.yaml')),
    ...fs.readdirSync(path.join(OPENAPI, 'components')).map((f) => `components/${f}`),
  ];
  return files.map((f) => [f, YAML.parse(fs.readFileSync(path.join(OPENAPI, f), 'utf8'))]);
}

t.test('served documents name the configured BASE_URL as their server; the committed ones stay relative', async (t) => {
  const { api, baseUrl } = await sharedServer({ env: { BASE_URL: 'https://api.example.test' } });
  const committed = new Map(sourceDocuments());
  const index = await api.get('/openapi', { expect: 200 });
  t.ok(index.body.documents.length >= 4);
  for (const doc of index.body.documents) {
    const source = committed.get(`${doc.name}.yaml`) as { servers: { url: string }[] };
    t.ok(source.servers[0]!.url.startsWith('/'), `${doc.name}: the committed server is relative`);
    const basePath = source.servers[0]!.url.replace(/\/+$/, '');
    const json = (await (await fetch(`${baseUrl}${doc.json}`)).json()) as any;
    t.equal(json.servers[0].url, `https://api.example.test${basePath}`, `${doc.name}.json`);
    const yaml = YAML.parse(await (await fetch(`${baseUrl}${doc.yaml}`)).text());
    t.equal(yaml.servers[0].url, `https://api.example.test${basePath}`, `${doc.name}.yaml`);
    const { servers: _served, ...rest } = json;
    const { servers: _bundled, ...bundle } = loadOpenApiDocument(doc.name);
    t.same(rest, bundle, `${doc.name}: only servers differ from the bundle`);
  }
});

t.test('published descriptions carry no working notes', async (t) => {
  const { api, baseUrl } = await sharedServer();
  const index = await api.get('/openapi', { expect: 200 });
  const documents: [string, unknown][] = sourceDocuments();
  for (const doc of index.body.documents) documents.push([doc.json, await (await fetch(`${baseUrl}${doc.json}`)).json()]);
  const all = documents.flatMap(([name, document]) => prose(document).map(([where, text]) => ({ where: `${name} ${where}`, text })));
  t.ok(all.length > 200, `${all.length} descriptions checked`);
  t.same(
    all.filter((d) => WORKING_NOTE.test(d.text)),
    [],
  );
});
