import t from 'tap';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { contractRegistry } from '../helpers/contract.ts';
import { startServer } from '../helpers/server.ts';

const LIMIT = 10_000_000;

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * Peak growth of rss and of live ArrayBuffer memory over the baseline while `work` runs. Each sample
 * is taken after a full GC, so it measures what is held, not socket buffers already thrown away.
 */
async function peakGrowth<T>(work: (sample: () => void) => Promise<T>): Promise<{ result: T; rss: number; arrayBuffers: number }> {
  // Let memory released asynchronously (finalizers, closed streams) settle before the baseline.
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(30);
  }
  gc();
  const baseline = process.memoryUsage();
  let rss = 0;
  let arrayBuffers = 0;
  const sample = () => {
    gc();
    const now = process.memoryUsage();
    rss = Math.max(rss, now.rss - baseline.rss);
    arrayBuffers = Math.max(arrayBuffers, now.arrayBuffers - baseline.arrayBuffers);
  };
  const timer = setInterval(sample, 5);
  try {
    const result = await work(sample);
    sample();
    return { result, rss, arrayBuffers };
  } finally {
    clearInterval(timer);
  }
}

/**
 * POSTs a multipart body whose file part is `size` bytes generated on the fly from one reused 64 KiB
 * buffer, so the client side of this process allocates next to nothing (fetch with a Blob would copy
 * the whole file and hide what the server does). `onMegabyte` runs after every megabyte written. The
 * response is still checked against the contract.
 */
function streamUpload(baseUrl: string, token: string, size: number, onMegabyte: () => void): Promise<{ status: number; body: any }> {
  const boundary = 'limit-test-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}/api/v1/files`, {
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
        const body = JSON.parse(text);
        contractRegistry().validate('POST', '/api/v1/files', response.statusCode!, response.headers['content-type'] ?? null, body);
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
          // Sample memory every 1 MB sent as well as on the timer, so a busy machine cannot skip it.
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
  const server = await startServer(t);
  const token = await server.token('alice');

  t.test('the measurement sees a 10 MB buffer held by the server side', async (t) => {
    const { arrayBuffers } = await peakGrowth(async (sample) => {
      const held = Buffer.alloc(LIMIT, 1);
      await sleep(10);
      sample();
      return held.length;
    });
    t.ok(arrayBuffers > LIMIT * 0.75, `a held buffer shows as ${arrayBuffers} bytes`);
  });

  t.test('10,000,001 bytes: 413 while the server holds far less than the upload in memory', async (t) => {
    const { result, rss, arrayBuffers } = await peakGrowth((sample) => streamUpload(server.baseUrl, token, LIMIT + 1, sample));
    t.equal(result.status, 413);
    t.match(result.body, { type: '/problems/payload-too-large', status: 413 });
    t.comment(
      `peak growth during the rejected upload: rss ${(rss / 1e6).toFixed(1)} MB, arrayBuffers ${(arrayBuffers / 1e6).toFixed(1)} MB`,
    );
    t.ok(arrayBuffers < LIMIT / 4, `arrayBuffers grew by ${arrayBuffers} bytes, far below ${LIMIT + 1}`);
    t.ok(rss < LIMIT / 2, `rss grew by ${rss} bytes, below half the upload`);
    const stored = await server.database.db
      .selectFrom('files')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    t.equal(Number(stored.n), 0, 'nothing stored');
  });

  t.test('exactly 10,000,000 bytes round-trip byte for byte', async (t) => {
    const blob = content(LIMIT);
    const expected = createHash('sha256')
      .update(Buffer.from(await blob.arrayBuffer()))
      .digest('hex');
    const form = new FormData();
    form.append('file', blob, 'exact.bin');
    const created = await server.api.post('/api/v1/files', { raw: form, token, expect: 201 });
    t.equal(created.body.size, LIMIT);
    const download = await fetch(`${server.baseUrl}${created.body.url}`, { headers: { authorization: `Bearer ${token}` } });
    t.equal(download.status, 200);
    t.equal(download.headers.get('content-length'), String(LIMIT));
    const body = Buffer.from(await download.arrayBuffer());
    t.equal(body.length, LIMIT);
    t.equal(createHash('sha256').update(body).digest('hex'), expected);
  });
});
