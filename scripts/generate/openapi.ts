/**
 * OpenAPI side of `npm run generate`: bundle each document (shared components inlined), lint it with
 * the rules of `npm run lint:specs` (redocly.yaml), emit its TypeScript types, and precompile its
 * request validators with ajv so no schema is compiled at start. Every problem with a document is one
 * line `openapi/<file>.yaml:line:column: message`.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  bundle,
  createConfig,
  getLineColLocation,
  getMergedConfig,
  lint,
  loadConfig,
  parseYaml,
  unescapePointer,
  YamlParseError,
  type Config,
  type LocationObject,
  type NormalizedProblem,
} from '@redocly/openapi-core';
import standaloneCode from 'ajv/dist/standalone/index.js';
import openapiTS, { astToString } from 'openapi-typescript';
import { parseDocument as parseYamlDocument } from 'yaml';
import { createJsonSchemaValidator } from '../../src/json-schema.ts';
import { PATH_ITEM_METHODS, SERVED_METHODS } from '../../src/http/openapi-methods.ts';
import { addEventTypeEnum } from './event-catalog.ts';
import { addProblemTypeTable, problemTypes } from './problem-types.ts';
import { SpecError } from './spec-error.ts';
import { addTransportResponses } from './transport-responses.ts';

type Json = Record<string, any>;

export function listDocuments(openapiDir: string): string[] {
  return fs
    .readdirSync(openapiDir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''))
    .sort();
}

/** `openapi/posts.yaml:135:11`: a problem's place, its file named from the project root. */
function place(root: string, location: LocationObject): string {
  const { start } = getLineColLocation(location);
  return `${path.relative(root, location.source.absoluteRef)}:${start.line}:${start.col}`;
}

/** The `$ref` string of the object at a problem's location (`#/paths/~1posts/get/parameters/2`). */
function refAt(location: LocationObject): string {
  if (!location.pointer) return '?';
  let node: unknown = parseYaml(location.source.body);
  for (const key of location.pointer.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    node = (node as Json | undefined)?.[unescapePointer(key)];
  }
  return String((node as Json | undefined)?.$ref ?? '?');
}

/** js-yaml's message without the file and place it appends: `a line break is expected`. */
function yamlReason(message: string): string {
  return message.replace(/^Failed to parse: /, '').replace(/ in "[^"]*" \(\d+:\d+\)$/, '');
}

/**
 * A YAML syntax error of `file` at the place of the mistake: the bundler's parser (js-yaml) names
 * where it gave up, often the line after a missing colon or far below an unclosed quote; the `yaml`
 * package names the line of the mistake itself (`All mapping items must start at the same column`,
 * `Missing closing "quote`). The bundler's own line when `yaml` finds nothing wrong (YAML 1.1
 * against 1.2 differences).
 */
function syntaxErrorLine(root: string, file: string, fallback: string): string {
  // The earliest error: an unclosed quote is reported after what it swallowed.
  const [first] = parseYamlDocument(fs.readFileSync(file, 'utf8')).errors.sort((a, b) => a.pos[0] - b.pos[0]);
  if (!first?.linePos) return fallback;
  const reason = first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  return `${path.relative(root, file)}:${first.linePos[0].line}:${first.linePos[0].col}: ${reason}`;
}

/**
 * One line per problem the bundler reports: a referenced file that is not YAML
 * (`openapi/components/paging.yaml:100:1: unexpected end of the stream…`, once, without the refs that
 * fail because of it) or a `$ref` that leads nowhere (`openapi/posts.yaml:135:11: cannot resolve
 * $ref '#/components/parameters/limitt'`).
 */
function bundleProblemLines(root: string, problems: readonly NormalizedProblem[]): string[] {
  const out = new Set<string>();
  const unparsed = new Set<string>();
  for (const problem of problems) {
    if (problem.message.startsWith('Failed to parse: ')) unparsed.add(yamlReason(problem.message));
  }
  for (const problem of problems) {
    const location = problem.location[0];
    const at = location ? `${place(root, location)}: ` : '';
    const unresolved = /^Can't resolve \$ref(?:: (.*))?$/s.exec(problem.message);
    if (problem.message.startsWith('Failed to parse: ')) {
      const fallback = `${at}${yamlReason(problem.message)}`;
      out.add(location ? syntaxErrorLine(root, location.source.absoluteRef, fallback) : fallback);
    } else if (unresolved && unresolved[1] && unparsed.has(yamlReason(unresolved[1]))) continue;
    else if (unresolved && location) {
      out.add(`${at}cannot resolve $ref '${refAt(location)}'${unresolved[1] ? `: ${unresolved[1].split('\n')[0]}` : ''}`);
    } else out.add(`${at}${problem.message.split('\n')[0]}`);
  }
  return [...out];
}

/**
 * The document with its shared components inlined, the answers of every operation before routing
 * added (transport-responses.ts), its problem types listed in the Problem description
 * (problem-types.ts) and the event catalog's types as the EventType enum (event-catalog.ts). A document that is not YAML, or that bundles with errors, is a SpecError
 * naming each place. `root` names the files in it (default: the folder above
 * openapi/).
 */
export async function bundleDocument(file: string, root = path.dirname(path.dirname(file))): Promise<Json> {
  const config = await createConfig({});
  let result: Awaited<ReturnType<typeof bundle>>;
  try {
    result = await bundle({ ref: file, config, dereference: false, removeUnusedComponents: false });
  } catch (error) {
    if (!(error instanceof YamlParseError)) throw error;
    throw new SpecError(
      syntaxErrorLine(root, file, `${path.relative(root, file)}:${error.line}:${error.col}: ${yamlReason(error.message)}`),
    );
  }
  const errors = result.problems.filter((p) => p.severity === 'error');
  if (errors.length) throw SpecError.of(bundleProblemLines(root, errors));
  const doc = result.bundle.parsed as Json;
  // spec-diff bundles older revisions too, some from before the list: their Problem stays as written.
  if (doc.components?.schemas?.Problem?.['x-problem-types']) addProblemTypeTable(doc, problemTypes(doc, path.relative(root, file))!);
  addEventTypeEnum(doc);
  addTransportResponses(doc);
  return doc;
}

/** redocly.yaml, as `npm run lint:specs` (`redocly lint`) reads it; a SpecError when it is missing or not valid. */
export async function loadLintConfig(root: string): Promise<Config> {
  const configPath = path.join(root, 'redocly.yaml');
  if (!fs.existsSync(configPath)) throw new SpecError('redocly.yaml: missing (generate lints openapi/ with its rules, as lint:specs does)');
  try {
    return await loadConfig({ configPath });
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(/^Error parsing config file at '[^']*': /, '');
    const at = / in "[^"]*" \((\d+):(\d+)\)$/.exec(message);
    throw new SpecError(`redocly.yaml${at ? `:${at[1]}:${at[2]}` : ''}: ${yamlReason(message).split('\n')[0]}`);
  }
}

/**
 * The findings of redocly.yaml's rules on one document (with the rules of its entry under `apis`),
 * one line each: `openapi/posts.yaml:127:11: Parameter object description must be present.
 * (parameter-description)`. A document with no entry under `apis` gets the top-level rules.
 */
export async function lintDocument(config: Config, root: string, file: string): Promise<{ errors: string[]; warnings: string[] }> {
  const base = config.configFile ? path.dirname(path.resolve(root, config.configFile)) : root;
  const alias = Object.entries(config.apis).find(([, api]) => path.resolve(base, api.root) === path.resolve(file))?.[0];
  let problems: Awaited<ReturnType<typeof lint>>;
  try {
    problems = await lint({ ref: file, config: alias ? getMergedConfig(config, alias) : config });
  } catch (error) {
    // A document that does not parse throws here; bundleDocument has said where, in one line.
    if (error instanceof YamlParseError) return { errors: [], warnings: [] };
    throw error;
  }
  const found = { errors: [] as [number[], string][], warnings: [] as [number[], string][] };
  for (const problem of problems) {
    // Bundling reports what cannot be read or resolved, at the same place and in its own words.
    if (problem.ignored || problem.ruleId === 'no-unresolved-refs' || problem.message.startsWith('Failed to parse')) continue;
    const location = problem.location[0];
    const line = `${location ? `${place(root, location)}: ` : ''}${problem.message.split('\n')[0]} (${problem.ruleId})`;
    const start = location ? getLineColLocation(location).start : { line: 0, col: 0 };
    (problem.severity === 'error' ? found.errors : found.warnings).push([[start.line, start.col], line]);
  }
  // In the order of the file (redocly lists them rule by rule).
  const inOrder = (lines: [number[], string][]) => lines.sort(([a], [b]) => a[0]! - b[0]! || a[1]! - b[1]!).map(([, line]) => line);
  return { errors: inOrder(found.errors), warnings: inOrder(found.warnings) };
}

/**
 * Refuses an operation under a method the server does not route (`head`, `options`, `trace`): it
 * would be published, typed and given validators, and its handler would never run
 * (src/http/openapi-routes.ts registers SERVED_METHODS only). `file` names the document in the
 * report (`openapi/ops.yaml`).
 */
export function checkServedMethods(doc: Json, file: string): void {
  const served: readonly string[] = SERVED_METHODS;
  const problems: string[] = [];
  for (const [route, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of PATH_ITEM_METHODS) {
      if (!item[method] || served.includes(method)) continue;
      problems.push(
        `${file}: paths.${route}.${method}: ${method.toUpperCase()} operations are not served (served: ${served.join(', ')}); remove it or serve it`,
      );
    }
  }
  if (problems.length) throw new SpecError(problems.join('\n'));
}

/**
 * TypeScript types of one document. The server's copy (generated/openapi/) types a field the server
 * defaults as present, as handlers see it after validation filled it in; the SDK's copy
 * (generated/client/openapi/) types it optional, as a client may leave it out.
 */
export async function generateTypes(doc: Json, reader: 'server' | 'client'): Promise<string> {
  const ast = await openapiTS(structuredClone(doc) as any, { alphabetize: true, defaultNonNullable: reader === 'server' });
  return `// @generated by \`npm run generate\` from the OpenAPI document. Do not edit.\n${astToString(ast)}`;
}

/**
 * JSON Schema for one operation's path or query parameters, as an object keyed by parameter name.
 * Every operation gets a query schema, closed (`additionalProperties: false`), so a query parameter
 * the document does not declare is a 400 naming it instead of being silently ignored.
 */
function parameterSchema(params: Json[], location: 'path' | 'query', components: Json): Json | null {
  const own = params.filter((p) => p.in === location);
  if (!own.length && location === 'path') return null;
  const properties: Json = {};
  const required: string[] = [];
  for (const p of own) {
    properties[p.name] = p.schema ?? {};
    if (p.required) required.push(p.name);
  }
  return withReachableDefs(localiseRefs({ type: 'object', properties, required, additionalProperties: location === 'path' }), components);
}

/** The object a local `$ref` leads to (through chains of refs); `value` itself when it is none. */
export function resolveRef(doc: Json, value: Json): Json {
  let current = value;
  while (current && typeof current.$ref === 'string' && current.$ref.startsWith('#/')) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((node: Json, key: string) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return current;
}

/** Rewrites component refs so every operation schema is self-contained over `$defs`. */
function localiseRefs(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"#/$defs/'));
}

/** Keeps only the `$defs` an operation schema reaches, so each compiled validator stays small. */
function withReachableDefs(schema: Json, defs: Json): Json {
  const reached = new Set<string>();
  const queue = [JSON.stringify(schema)];
  while (queue.length) {
    for (const m of queue.pop()!.matchAll(/"#\/\$defs\/([^"]+)"/g)) {
      const name = m[1]!;
      if (reached.has(name) || !defs[name]) continue;
      reached.add(name);
      queue.push(JSON.stringify(defs[name]));
    }
  }
  if (!reached.size) return schema;
  return { ...schema, $defs: Object.fromEntries([...reached].sort().map((n) => [n, defs[n]])) };
}

interface OperationValidators {
  params: Record<string, Json>;
  bodies: Record<string, Json>;
}

function collectValidatorSchemas(doc: Json): OperationValidators {
  const components = localiseRefs(doc.components?.schemas ?? {});
  const out: OperationValidators = { params: {}, bodies: {} };
  for (const [route, item] of Object.entries<Json>(doc.paths ?? {})) {
    const shared: Json[] = (item.parameters ?? []).map((p: Json) => resolveRef(doc, p));
    for (const method of PATH_ITEM_METHODS) {
      const op = item[method];
      if (!op?.operationId) continue;
      const params = [...shared, ...(op.parameters ?? []).map((p: Json) => resolveRef(doc, p))];
      for (const location of ['path', 'query'] as const) {
        const schema = parameterSchema(params, location, components);
        if (schema) out.params[`${op.operationId}_${location}`] = schema;
      }
      const body = op.requestBody ? resolveRef(doc, op.requestBody) : null;
      // A form body (SAML's HTTP-POST binding, OIDC back-channel logout) is validated as the object it parses into.
      const jsonSchema = body?.content?.['application/json']?.schema ?? body?.content?.['application/x-www-form-urlencoded']?.schema;
      if (jsonSchema) out.bodies[`${op.operationId}_body`] = withReachableDefs(localiseRefs(jsonSchema), components);
      void route;
    }
  }
  return out;
}

function compileModule(schemas: Record<string, Json>, coerce: boolean): string {
  const ajv = createJsonSchemaValidator({
    allErrors: true,
    code: { source: true, esm: true, lines: true },
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    // Prices are multiples of 0.01. The quotient carries float error that grows with magnitude
    // (9999999999.99 / 0.01 is off by ~2e-4), so compare with 1e-3 tolerance; the services then check
    // 2 fraction digits exactly (src/catalog/money.ts).
    multipleOfPrecision: 3,
    discriminator: true,
  });
  const names = Object.keys(schemas).sort();
  for (const name of names) ajv.addSchema({ ...schemas[name], $id: name }, name);
  if (!names.length) return 'export {};\n';
  const mapping = Object.fromEntries(names.map((n) => [n, n]));
  // ajv's ESM output still require()s its small runtime helpers (ucs2length, formats): provide require.
  return `import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n${standaloneCode.default(ajv, mapping)}`;
}

interface ValidatorModules {
  paramsJs: string;
  paramsDts: string;
  bodiesJs: string;
  bodiesDts: string;
}

function declarations(names: string[]): string {
  return [
    '// @generated by `npm run generate`. Do not edit.',
    "import type { ValidateFunction } from 'ajv';",
    ...names.sort().map((n) => `export declare const ${n}: ValidateFunction;`),
    '',
  ].join('\n');
}

export function generateValidators(doc: Json): ValidatorModules {
  const { params, bodies } = collectValidatorSchemas(doc);
  const header = '// @generated by `npm run generate` from the OpenAPI document. Do not edit.\n';
  return {
    paramsJs: header + compileModule(params, true),
    paramsDts: declarations(Object.keys(params)),
    bodiesJs: header + compileModule(bodies, false),
    bodiesDts: declarations(Object.keys(bodies)),
  };
}

export function writeFile(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content.endsWith('\n') ? content : `${content}\n`);
}
