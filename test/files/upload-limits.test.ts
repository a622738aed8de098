// test-suite: once (the multipart spool's memory, before any database work)
import t from 'tap';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { contractRegistry } from '../helpers/contract.ts';
import { startServer } from '../helpers/server.ts';

const LIMIT = 10_000_000;

/**
 * What the server holds of an upload in its own memory: the bytes it has read from the request's
 * socket less the bytes its spool has written to disk (the upload streams into a temporary file,
 * src/http/multipart-upload.ts). Bytes still in the kernel's socket buffers are not the server's,
 * and garbage it has let go of is not counted either, so no garbage collection is forced: the
 * figure is the same on an idle and on a loaded machine.
 */
class UploadMeter {
  /** The server spools uploads under the temporary folder, pointed here while the meter runs. */
  readonly spoolRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'upload-limits-'));
  private request: { socket: Socket; bytesReadBefore: number } | undefined;
  private spooled = 0;
  private peak = 0;

  /** Called as the server starts reading the upload (an onRequest hook): a kept-alive socket has read earlier requests. */
  uploadStarted(socket: Socket): void {
    this.request = { socket, bytesReadBefore: socket.bytesRead };
  }

  /** Largest size a spool file reached (it only grows, then is removed; the largest is kept). */
  private spooledBytes(): number {
    for (const entry of fs.readdirSync(this.spoolRoot)) {
      try {
        this.spooled = Math.max(this.spooled, fs.statSync(path.join(this.spoolRoot, entry, 'content')).size);
      } catch {
        // Created but not yet written, or already removed: the last size seen stands.
      }
    }
    return this.spooled;
  }

  private sample = (): void => {
    if (!this.request) return;
    const read = this.request.socket.bytesRead - this.request.bytesReadBefore;
    this.peak = Math.max(this.peak, read - this.spooledBytes());
  };

  /** Peak bytes held while `work` runs, sampled every 5 ms and after every megabyte the client sends. */
  async measure<T>(work: (sample: () => void) => Promise<T>): Promise<{ result: T; held: number }> {
    this.request = undefined;
    this.spooled = 0;
    this.peak = 0;
    const tmpdir = process.env.TMPDIR;
    process.env.TMPDIR = this.spoolRoot;
    const timer = setInterval(this.sample, 5);
    try {
      const result = await work(this.sample);
      this.sample();
      return { result, held: this.peak };
    } finally {
      clearInterval(timer);
      if (tmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdir;
    }
  }
}

/**
 * POSTs a multipart body whose file part is `size` bytes generated on the fly from one reused 64 KiB
 * buffer, so the client side of this process allocates next to nothing (fetch with a Blob would copy
 * the whole file). `onMegabyte` runs after every megabyte written. The response is checked against
 * the contract, unless the route is the test's own.
 */
function streamUpload(
  baseUrl: string,
  token: string,
  size: number,
  onMegabyte: () => void,
  target: { path: string; contract: boolean } = { path: '/api/v1/files', contract: true },
): Promise<{ status: number; body: any }> {
  const boundary = 'limit-test-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}${target.path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + size + tail.length,
      },
    });
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (d: string) => (text += d));
      response.on('end', () => {
        const body = text ? JSON.parse(text) : undefined;
        if (target.contract) {
          contractRegistry().validate('POST', target.path, response.statusCode!, response.headers['content-type'] ?? null, body);
        }
        resolve({ status: response.statusCode!, body });
      });
    });
    // The server may answer and stop reading before the whole body is sent; that is the point.
    request.on('error', (error) =>
      (error as NodeJS.ErrnoException).code === 'EPIPE' || (error as NodeJS.ErrnoException).code === 'ECONNRESET'
        ? undefined
        : reject(error),
    );
    let sent = 0;
    const pump = () => {
      request.write(head);
      const next = (): void => {
        while (sent < size) {
          const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
          // Sample every 1 MB sent as well as on the timer, so a busy machine cannot skip a sample.
          if (Math.floor((sent + piece.length) / 1e6) > Math.floor(sent / 1e6)) onMegabyte();
          sent += piece.length;
          if (!request.write(piece)) {
            request.once('drain', next);
            return;
          }
        }
        request.end(tail);
      };
      next();
    };
    pump();
  });
}

/** Deterministic, incompressible content of `size` bytes, held in a Blob so fetch streams it. */
function content(size: number): Blob {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i + 4 <= size; i += 4) bytes.writeUInt32LE((Math.imul(i, 2654435761) ^ 0x5bd1e995) >>> 0, i);
  bytes.fill(0xa5, size - (size % 4));
  return new Blob([bytes]);
}

t.test('uploads at and over the 10,000,000-byte limit', async (t) => {
  const meter = new UploadMeter();
  t.teardown(() => fs.rmSync(meter.spoolRoot, { recursive: true, force: true }));
  const server = await startServer(t, {
    configure: async (app) => {
      app.http.addHook('onRequest', async (request) => {
        if (request.method === 'POST') meter.uploadStarted(request.raw.socket);
      });
      // What the meter must catch: an upload read whole into memory before it is written out.
      await app.http.register(async (scope) => {
        scope.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
        scope.post('/test/buffered-upload', async (request, reply) => {
          const chunks: Buffer[] = [];
          for await (const chunk of request.raw) chunks.push(chunk as Buffer);
          const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'buffered-'));
          fs.writeFileSync(path.join(dir, 'content'), Buffer.concat(chunks));
          fs.rmSync(dir, { recursive: true });
          return reply.code(204).send();
        });
      });
    },
  });
  const token = await server.token('alice');

  t.test('the meter sees an upload held in memory by the server', async (t) => {
    const { result, held } = await meter.measure((sample) =>
      streamUpload(server.baseUrl, token, LIMIT, sample, { path: '/test/buffered-upload', contract: false }),
    );
    t.equal(result.status, 204);
    t.ok(held > LIMIT * 0.75, `a buffered upload shows as ${held} bytes held`);
  });

  t.test('10,000,001 bytes: 413 while the server holds far less than the upload in memory', async (t) => {
    const { result, held } = await meter.measure((sample) => streamUpload(server.baseUrl, token, LIMIT + 1, sample));
    t.equal(result.status, 413);
    t.match(result.body, { type: '/problems/payload-too-large', status: 413 });
    t.comment(`peak held by the server during the rejected upload: ${(held / 1e6).toFixed(2)} MB`);
    t.ok(held < LIMIT / 4, `the server held at most ${held} bytes, far below ${LIMIT + 1}`);
    const stored = await server.database.db
      .selectFrom('files')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    t.equal(Number(stored.n), 0, 'nothing stored');
    t.same(
      fs.readdirSync(meter.spoolRoot).filter((d) => d.startsWith('schemaforge-upload-')),
      [],
      'the spool is removed',
    );
  });

  t.test('exactly 10,000,000 bytes round-trip byte for byte, streamed as they arrive', async (t) => {
    const blob = content(LIMIT);
    const expected = createHash('sha256')
      .update(Buffer.from(await blob.arrayBuffer()))
      .digest('hex');
    const form = new FormData();
    form.append('file', blob, 'exact.bin');
    const { result: created, held } = await meter.measure(() => server.api.post('/api/v1/files', { raw: form, token, expect: 201 }));
    t.equal(created.body.size, LIMIT);
    t.ok(held < LIMIT / 4, `the server held at most ${held} bytes while receiving`);
    const download = await fetch(`${server.baseUrl}${created.body.url}`, { headers: { authorization: `Bearer ${token}` } });
    t.equal(download.status, 200);
    t.equal(download.headers.get('content-length'), String(LIMIT));
    const body = Buffer.from(await download.arrayBuffer());
    t.equal(body.length, LIMIT);
    t.equal(createHash('sha256').update(body).digest('hex'), expected);
  });
});
