/**
 * Real HTTPS webhook receivers on loopback, with a test certificate authority generated once per
 * process: the receivers' certificates are signed by it for `localhost`, `127.0.0.1` and `::1` (and
 * any extra names a test asks for), and the CA's PEM is what a test hands the delivery agent (or a
 * child process through NODE_EXTRA_CA_CERTS, see `writeTestCaFile`).
 *
 * A receiver records every request (raw body, headers, arrival time) and answers with whatever the
 * test's `respond` returns (default 200), so one receiver can play every row of the outcomes table.
 * Every body it receives is checked against the event catalog (`catalogViolation`): a body that is not
 * what the `webhooks` section of openapi/webhooks.yaml declares for its `type` fails the test that
 * received it.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import type { ValidateFunction } from 'ajv';
import type { Test } from 'tap';
import { createJsonSchemaValidator } from '../../src/json-schema.ts';

type Json = Record<string, any>;

interface TestCa {
  cert: string;
  key: string;
}

let caPromise: Promise<TestCa> | undefined;

/** The process-wide test CA (EC P-256: generating it takes milliseconds). */
export function testCa(): Promise<TestCa> {
  caPromise ??= generate([{ name: 'commonName', value: 'schemaforge test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  }).then((pems) => ({ cert: pems.cert, key: pems.private }));
  return caPromise;
}

/** Writes the CA certificate to a file (for NODE_EXTRA_CA_CERTS of a child process); removed at teardown. */
export async function writeTestCaFile(t: Test): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sf-ca-'));
  const file = path.join(dir, 'ca.pem');
  fs.writeFileSync(file, (await testCa()).cert);
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return file;
}

/** A certificate for `names` (DNS names or IP literals) signed by the test CA, or self-signed when `untrusted`. */
export async function serverCertificate(names: string[], options: { untrusted?: boolean } = {}): Promise<{ cert: string; key: string }> {
  const ca = options.untrusted ? undefined : await testCa();
  const altNames = names.map((name) => (/^[\d.]+$|:/.test(name) ? { type: 7 as const, ip: name } : { type: 2 as const, value: name }));
  const pems = await generate([{ name: 'commonName', value: names[0] ?? 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ...(ca ? { ca } : {}),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

let catalog: { doc: Json; ajv: ReturnType<typeof createJsonSchemaValidator>; compiled: Map<string, ValidateFunction> } | undefined;

/**
 * Why a delivered body is not what the catalog declares for its `type`, or undefined when it is: the
 * schema of the entry's requestBody in the published document (generated/openapi/webhooks.json), the
 * fat one or, when `data` carries `object_id`, the thin one. The reason names the type, the body's
 * form and each field that breaks it.
 */
export function catalogViolation(rawBody: string): string | undefined {
  if (!catalog) {
    const doc = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../generated/openapi/webhooks.json'), 'utf8')) as Json;
    const ajv = createJsonSchemaValidator({ allErrors: true });
    ajv.addSchema(doc, 'webhooks');
    catalog = { doc, ajv, compiled: new Map() };
  }
  let body: Json;
  try {
    body = JSON.parse(rawBody) as Json;
  } catch {
    return `the body is not JSON: ${rawBody.slice(0, 200)}`;
  }
  const declared: unknown = body?.type;
  const media =
    typeof declared === 'string' ? (catalog.doc.webhooks?.[declared]?.post?.requestBody?.content?.['application/json'] as Json) : undefined;
  if (!media) return `event type ${JSON.stringify(declared)} is not in the catalog (the webhooks section of openapi/webhooks.yaml)`;
  const type = declared as string;
  const refs: string[] = (media.schema.oneOf ?? [media.schema]).map((s: Json) => s.$ref as string);
  const thin = typeof body.data === 'object' && body.data !== null && 'object_id' in body.data;
  const form = thin ? 'thin' : 'fat';
  const ref = refs.find((r) => r.startsWith('#/components/schemas/Thin') === thin);
  if (!ref) return `${type}: the catalog declares no ${form} body`;
  let validate = catalog.compiled.get(ref);
  if (!validate) {
    validate = catalog.ajv.compile({ $ref: `webhooks${ref}` });
    catalog.compiled.set(ref, validate);
  }
  if (validate(body)) return undefined;
  const fields = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
  return `${type} (${form} body) breaks its catalog schema ${ref.slice('#/components/schemas/'.length)}: ${fields}`;
}

export interface ReceivedRequest {
  method: string;
  /** Path and query string. */
  url: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  receivedAt: number;
}

/** What the receiver answers: a status, optional headers and body; or `hang` to never answer. */
export type Reply = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';

interface Receiver {
  /** https://127.0.0.1:<port> (or the host given). */
  origin: string;
  port: number;
  requests: ReceivedRequest[];
  /** Resolves once `count` requests have arrived in all (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Replaces how the receiver answers from now on. */
  respond(reply: (request: ReceivedRequest, index: number) => Reply | Promise<Reply>): void;
  close(): Promise<void>;
}

interface ReceiverOptions {
  /** Names its certificate covers; default localhost, 127.0.0.1, ::1. */
  names?: string[];
  /** A certificate no CA signed: every handshake fails verification. */
  untrusted?: boolean;
  host?: string;
  respond?: (request: ReceivedRequest, index: number) => Reply | Promise<Reply>;
}

export async function startReceiver(t: Test, options: ReceiverOptions = {}): Promise<Receiver> {
  const names = options.names ?? ['localhost', '127.0.0.1', '::1'];
  const { cert, key } = await serverCertificate(names, { untrusted: options.untrusted });
  const requests: ReceivedRequest[] = [];
  let respond: (request: ReceivedRequest, index: number) => Reply | Promise<Reply> = options.respond ?? (() => ({ status: 200 }));
  const waiters: { count: number; resolve: () => void }[] = [];
  const hanging = new Set<ServerResponse>();

  const server = https.createServer({ cert, key }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      const index = requests.push(received) - 1;
      const violation = catalogViolation(received.rawBody);
      if (violation) t.fail(`a delivery to ${received.url} is not what the event catalog declares: ${violation}`);
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) waiter.resolve();
      void Promise.resolve(respond(received, index)).then(async (reply) => {
        if (reply === 'hang') {
          hanging.add(res);
          return;
        }
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        res.writeHead(reply.status, reply.headers ?? {});
        res.end(reply.body ?? '');
      });
    });
  });
  server.listen(0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  const receiver: Receiver = {
    origin: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    requests,
    waitFor(count, timeoutMs = 10_000) {
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests);
          },
        });
      });
    },
    respond(reply) {
      respond = reply;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
  t.teardown(() => receiver.close());
  return receiver;
}
