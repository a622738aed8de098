/**
 * Contract checking: every REST response a test receives is validated against the OpenAPI document
 * that declares its operation. An undocumented route or status, a content type the operation does not
 * declare, or a body that breaks the response schema fails the test.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { recordExercised } from './contract-coverage.ts';
import { SERVED_METHODS } from '../../src/http/openapi-methods.ts';

type Json = Record<string, any>;

const GENERATED = path.resolve(import.meta.dirname, '../../generated/openapi');

interface OperationEntry {
  doc: string;
  method: string;
  template: string;
  pattern: RegExp;
  literalSegments: number;
  operation: Json;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export class ContractRegistry {
  private readonly ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: true });
  private readonly operations: OperationEntry[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  /**
   * `recordCoverage: false` for responses that do not come from the real server (the mock server's),
   * which must not count towards contract coverage.
   */
  constructor(
    docs: Record<string, Json>,
    private readonly recordCoverage = true,
  ) {
    addFormats.default(this.ajv);
    for (const [name, doc] of Object.entries(docs)) {
      this.ajv.addSchema(doc, `openapi:${name}`);
      for (const [template, item] of Object.entries<Json>(doc.paths ?? {})) {
        for (const method of SERVED_METHODS) {
          if (!item[method]) continue;
          const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+');
          this.operations.push({
            doc: name,
            method: method.toUpperCase(),
            template,
            pattern: new RegExp(`^${source.replace(/\{[^}]+\}/g, '[^/]+')}$`),
            literalSegments: template.split('/').filter((s) => s && !s.startsWith('{')).length,
            operation: item[method],
          });
        }
      }
    }
    // Prefer the most literal template: /products/search over /products/{id}.
    this.operations.sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** Throws ContractViolation unless `body` is what openapi/webhooks.yaml's `webhooks` section documents for `eventType`. */
  validateWebhook(eventType: string, body: unknown): void {
    const doc = this.ajv.getSchema('openapi:webhooks')!.schema as Json;
    const requestBody: Json | undefined = doc.webhooks?.[eventType]?.post?.requestBody;
    if (!requestBody) throw new ContractViolation(`webhook ${eventType} is not documented in openapi/webhooks.yaml`);
    const at = typeof requestBody.$ref === 'string' ? requestBody.$ref : `#/webhooks/${escapePointer(eventType)}/post/requestBody`;
    this.check(`openapi:webhooks${at}/content/application~1json/schema`, body, `webhook ${eventType} body`);
  }

  /** Validates `body` against the schema at `ref` (compiled once), or throws naming `what`. */
  private check(ref: string, body: unknown, what: string): void {
    let validateFn = this.compiled.get(ref);
    if (!validateFn) {
      validateFn = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, validateFn);
    }
    if (!validateFn(body)) {
      const detail = (validateFn.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
      throw new ContractViolation(`${what} breaks its schema: ${detail}\n${JSON.stringify(body).slice(0, 2000)}`);
    }
  }

  static fromGenerated(recordCoverage = true): ContractRegistry {
    const docs: Record<string, Json> = {};
    for (const f of fs
      .readdirSync(GENERATED)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      docs[f.replace(/\.json$/, '')] = JSON.parse(fs.readFileSync(path.join(GENERATED, f), 'utf8'));
    }
    return new ContractRegistry(docs, recordCoverage);
  }

  find(method: string, urlPath: string): OperationEntry | undefined {
    return this.operations.find((o) => o.method === method.toUpperCase() && o.pattern.test(urlPath));
  }

  /**
   * Throws ContractViolation when the response does not match the operation's documented responses.
   * A response that passes is recorded for the contract coverage report (contract-coverage.ts).
   */
  validate(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
    const urlPath = new URL(url, 'http://x').pathname;
    const entry = this.find(method, urlPath);
    if (!entry) throw new ContractViolation(`${method} ${urlPath} is not documented in any OpenAPI document`);
    const responses: Json = entry.operation.responses ?? {};
    const key = String(status) in responses ? String(status) : `${String(status)[0]}XX` in responses ? `${String(status)[0]}XX` : null;
    const where = `${method} ${entry.template} (${entry.doc}: ${entry.operation.operationId})`;
    if (!key)
      throw new ContractViolation(
        `${where} answered ${status}, which is not documented (documented: ${Object.keys(responses).join(', ')})`,
      );
    this.checkResponse(entry, key, where, method, status, contentType, body);
    if (this.recordCoverage) recordExercised(entry.doc, entry.operation.operationId as string, key);
  }

  /** The documented response `key` of `entry`: its content type and, for JSON, its body schema. */
  private checkResponse(
    entry: OperationEntry,
    key: string,
    where: string,
    method: string,
    status: number,
    contentType: string | null,
    body: unknown,
  ): void {
    let response = (entry.operation.responses as Json)[key];
    let pointerBase = `#/paths/${escapePointer(entry.template)}/${method.toLowerCase()}/responses/${key}`;
    if (response.$ref) {
      pointerBase = response.$ref;
      response = pointerBase
        .slice(2)
        .split('/')
        .reduce(
          (n: Json, k: string) => n?.[k.replace(/~1/g, '/').replace(/~0/g, '~')],
          this.ajv.getSchema(`openapi:${entry.doc}`)!.schema as Json,
        );
    }
    const content: Json | undefined = response?.content;
    if (!content) {
      if (body !== undefined && body !== '' && body !== null)
        throw new ContractViolation(`${where} ${status} documents no body but one was sent`);
      return;
    }
    const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const declared = Object.keys(content);
    const match =
      declared.find((d) => d === mediaType) ??
      declared.find((d) => d.endsWith('/*') && mediaType.startsWith(d.slice(0, -1))) ??
      declared.find((d) => d === '*/*');
    if (!match)
      throw new ContractViolation(`${where} ${status} answered ${mediaType || '(no content type)'}; documented: ${declared.join(', ')}`);
    if (!content[match].schema || !/json/.test(match)) return;
    this.check(`openapi:${entry.doc}${pointerBase}/content/${escapePointer(match)}/schema`, body, `${where} ${status} body`);
  }
}

let shared: ContractRegistry | undefined;
export function contractRegistry(): ContractRegistry {
  shared ??= ContractRegistry.fromGenerated();
  return shared;
}

export interface CallOptions {
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
  /** The status the test expects; a different one fails with the response body in the message. */
  expect?: number;
  /** Raw body (Buffer, FormData, string) sent as is. */
  raw?: RequestInit['body'];
  /** `manual` answers a redirect as it is, without following it (to an identity provider, say). */
  redirect?: RequestInit['redirect'];
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class ContractClient {
  constructor(
    readonly baseUrl: string,
    private readonly registry: ContractRegistry = contractRegistry(),
  ) {}

  async call<T = any>(method: string, urlPath: string, options: CallOptions = {}): Promise<CallResult<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: RequestInit['body'] | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${urlPath}`, {
      method,
      headers,
      body,
      ...(options.redirect ? { redirect: options.redirect } : {}),
    });
    const text = await response.text();
    const contentType = response.headers.get('content-type');
    let parsed: unknown = text;
    if (contentType && /json/.test(contentType) && text) parsed = JSON.parse(text);
    if (options.expect !== undefined && response.status !== options.expect) {
      throw new Error(`${method} ${urlPath}: expected ${options.expect}, got ${response.status}: ${text.slice(0, 1000)}`);
    }
    this.registry.validate(method, urlPath, response.status, contentType, text === '' ? undefined : parsed);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(urlPath: string, options?: CallOptions) {
    return this.call<T>('GET', urlPath, options);
  }
  post<T = any>(urlPath: string, options?: CallOptions) {
    return this.call<T>('POST', urlPath, options);
  }
  put<T = any>(urlPath: string, options?: CallOptions) {
    return this.call<T>('PUT', urlPath, options);
  }
  patch<T = any>(urlPath: string, options?: CallOptions) {
    return this.call<T>('PATCH', urlPath, options);
  }
  delete<T = any>(urlPath: string, options?: CallOptions) {
    return this.call<T>('DELETE', urlPath, options);
  }
}
