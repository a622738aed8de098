/**
 * graphql-ws (the `graphql-transport-ws` protocol on /graphql) fed messages out of order and out of
 * shape: not JSON, not an object, unknown types, a subscribe before `connection_init`, a second init,
 * duplicate ids, payloads of the wrong kind, binary frames, documents that do not parse. Each
 * connection gets a short random sequence. The server may answer or close, but only with the
 * protocol's close codes (4400-series, 1000/1001, 1009 for a frame too large) and well-formed
 * messages whose errors carry a documented `errorType`; never 1011 or 4500 (an error of its own), and
 * never leave a connection hanging.
 */
import fc from 'fast-check';
import WebSocket from 'ws';

const ERROR_TYPES = new Set(['NOT_FOUND', 'FORBIDDEN', 'UNAUTHORIZED', 'BAD_REQUEST', 'TOO_MANY_REQUESTS']);
const CLOSE_CODES = new Set([1000, 1001, 1005, 1008, 1009, 4400, 4401, 4403, 4406, 4408, 4409, 4429]);
const MESSAGE_TYPES = new Set(['connection_ack', 'next', 'error', 'complete', 'ping', 'pong']);

type Frame = string | Buffer;

const init = JSON.stringify({ type: 'connection_init' });
const frame: fc.Arbitrary<Frame> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(init) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.oneof(fc.constantFrom('1', 'a', ''), fc.string({ maxLength: 6 }), fc.constant('x'.repeat(5000))),
        fc.constantFrom(
          '{ __typename }',
          'subscription { postCreated { id } }',
          'subscription { commentAdded(postId: "nope") { id } }',
          '{ users { totalElements } }',
          'mutation { createUser(input: {username: "w", email: "w@x.org", displayName: "W"}) { id } }',
          '{',
          'subscription { noSuchField }',
          `{ ${'a: __typename '.repeat(300)} }`,
        ),
      )
      .map(([id, query]) => JSON.stringify({ type: 'subscribe', id, payload: { query } })),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom<Frame>(
      'not json',
      '[]',
      'null',
      '42',
      '{}',
      JSON.stringify({ type: 'nope' }),
      JSON.stringify({ type: 'subscribe' }),
      JSON.stringify({ type: 'subscribe', id: 1, payload: { query: '{ __typename }' } }),
      JSON.stringify({ type: 'subscribe', id: 'v', payload: { query: '{ __typename }', variables: 'x' } }),
      JSON.stringify({ type: 'subscribe', id: 'p', payload: null }),
      JSON.stringify({ type: 'complete', id: 'never-started' }),
      JSON.stringify({ type: 'complete' }),
      JSON.stringify({ type: 'ping', payload: { a: 1 } }),
      JSON.stringify({ type: 'pong' }),
      JSON.stringify({ type: 'connection_init', payload: 'x' }),
      JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer not.a.token' } }),
      JSON.stringify({ type: 'connection_ack' }),
      Buffer.from([0, 1, 2, 3]),
      `{"type":"subscribe","id":"d","payload":{"query":"{ __typename }","variables":${'{"a":'.repeat(200)}1${'}'.repeat(200)}}}`,
    ),
  },
);

interface WsFuzzResult {
  connections: number;
  frames: number;
  closeCodes: Record<string, number>;
  failures: string[];
}

export async function fuzzWebSocket(
  baseUrl: string,
  options: { connections: number; seed: number; concurrency?: number },
): Promise<WsFuzzResult> {
  const sequences = fc.sample(fc.array(frame, { minLength: 1, maxLength: 5 }), { seed: options.seed, numRuns: options.connections });
  const result: WsFuzzResult = { connections: 0, frames: 0, closeCodes: {}, failures: [] };
  let next = 0;
  const url = `${baseUrl.replace(/^http/, 'ws')}/graphql`;
  const worker = async () => {
    while (next < sequences.length) {
      const sequence = sequences[next++]!;
      const outcome = await runConnection(url, sequence);
      result.connections++;
      result.frames += sequence.length;
      result.closeCodes[String(outcome.code)] = (result.closeCodes[String(outcome.code)] ?? 0) + 1;
      if (outcome.failure) {
        const shown = sequence.map((f) => (typeof f === 'string' ? f.slice(0, 80) : `<binary ${f.length}>`)).join(' | ');
        result.failures.push(`${outcome.failure}; sent: ${shown}`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  return result;
}

function runConnection(url: string, sequence: Frame[]): Promise<{ code: number | 'ours'; failure: string | null }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, 'graphql-transport-ws');
    let failure: string | null = null;
    let settled = false;
    const finish = (code: number | 'ours') => {
      if (settled) return;
      settled = true;
      clearTimeout(hang);
      resolve({ code, failure });
    };
    // Ours to close once the sequence has had its answers; a server that neither answers nor closes
    // within 10 s is hanging.
    const hang = setTimeout(() => {
      failure ??= 'no close within 10 s';
      socket.terminate();
      finish('ours');
    }, 10_000);
    socket.on('message', (data: Buffer) => {
      const text = data.toString('utf8');
      let message: { type?: unknown; payload?: unknown };
      try {
        message = JSON.parse(text) as typeof message;
      } catch {
        failure ??= `a message that is not JSON: ${text.slice(0, 100)}`;
        return;
      }
      if (!MESSAGE_TYPES.has(String(message.type))) failure ??= `a message of type ${String(message.type)}`;
      const errors = message.type === 'error' ? (message.payload as { extensions?: { errorType?: string } }[]) : [];
      for (const error of Array.isArray(errors) ? errors : []) {
        if (!ERROR_TYPES.has(String(error.extensions?.errorType)))
          failure ??= `an error without a documented errorType: ${JSON.stringify(error).slice(0, 160)}`;
      }
    });
    socket.on('open', () => {
      void (async () => {
        for (const f of sequence) {
          if (socket.readyState !== WebSocket.OPEN) return;
          socket.send(f);
          await new Promise((r) => setTimeout(r, 5));
        }
        await new Promise((r) => setTimeout(r, 300));
        if (socket.readyState === WebSocket.OPEN) {
          socket.close(1000);
        }
      })();
    });
    socket.on('unexpected-response', (_request, response) => {
      failure ??= `the handshake was refused with ${response.statusCode}`;
      finish('ours');
    });
    socket.on('error', () => undefined);
    socket.on('close', (code) => {
      if (!CLOSE_CODES.has(code)) failure ??= `closed with ${code}`;
      finish(code);
    });
  });
}
