// test-suite: once (its race needs real concurrency, which only PostgreSQL has (PGlite serializes every statement))
/**
 * FILES_QUOTA_BYTES: the total bytes one user may store through POST /api/v1/files. An upload that
 * would take its uploader over it is refused with 413 /problems/quota-exceeded before it is stored.
 */
import t from 'tap';
import { multipart } from '../catalog/fixtures.ts';
import { sharedServer, type TestServer } from '../helpers/server.ts';

const QUOTA = { env: { FILES_QUOTA_BYTES: '100' } };

function upload(server: TestServer, token: string, bytes: number, expect: number) {
  return server.api.post('/api/v1/files', { raw: multipart('file', Buffer.alloc(bytes, 120), 'f.bin'), token, expect });
}

async function stored(server: TestServer): Promise<{ files: number; blobs: number; chunks: number }> {
  const count = async (table: 'files' | 'blobs' | 'blob_chunks') =>
    Number(
      (
        await server.database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { files: await count('files'), blobs: await count('blobs'), chunks: await count('blob_chunks') };
}

t.test('an upload over the uploader quota is refused with 413 quota-exceeded, and nothing is stored', async (t) => {
  const server = await sharedServer(QUOTA);
  const alice = await server.token('alice');
  await upload(server, alice, 60, 201);
  await upload(server, alice, 40, 201);
  const before = await stored(server);
  t.same(before, { files: 2, blobs: 2, chunks: 2 });

  const over = await upload(server, alice, 1, 413);
  t.same(over.body, {
    type: '/problems/quota-exceeded',
    title: 'Quota exceeded',
    status: 413,
    code: 'QUOTA_EXCEEDED',
    detail: 'Storing this file (1 bytes) would exceed your quota of 100 bytes; you store 100 bytes',
    instance: '/api/v1/files',
  });
  t.match(over.headers.get('content-type'), /^application\/problem\+json/);
  t.same(await stored(server), before, 'no file, blob or chunk was written');

  await upload(server, await server.token('bob'), 100, 201);
  t.pass('the quota is per user: bob stores his 100 bytes');
  const tooBig = await upload(server, await server.token('carol'), 101, 413);
  t.equal(tooBig.body.type, '/problems/quota-exceeded', 'a single file over the whole quota');
});

t.test('two uploads of one user at once cannot both pass the quota', async (t) => {
  const server = await sharedServer(QUOTA);
  const alice = await server.token('alice');
  const post = () =>
    fetch(`${server.baseUrl}/api/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}` },
      body: multipart('file', Buffer.alloc(60, 120), 'f.bin'),
    });
  const statuses = (await Promise.all([post(), post(), post()])).map((r) => r.status).sort();
  t.same(statuses, [201, 413, 413], 'one of three 60-byte uploads fits in 100 bytes');
  t.equal((await stored(server)).files, 1);
});
